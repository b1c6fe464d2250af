/* A fast scanner for the plain XML that algorithm files are written in: elements with
 * double- or single-quoted attributes, comments, an XML declaration, white space between
 * tags. It calls the element callbacks of a GMarkupParser as GMarkup would, many times
 * faster, and declines everything else (entities, CDATA, a DOCTYPE, text, names that are
 * not XML names, a value GMarkup would normalise, a repeated attribute, a tag that does not
 * close what it should): the caller then reads the text again with GMarkup, whose messages
 * and checks stay the reference (as yaml_fast.h does for YAML). It expects what fennel
 * reads, UTF-8 text without NUL bytes. */
#ifndef FENNEL_XML_FAST_H
#define FENNEL_XML_FAST_H

#include <glib.h>
#include <stdint.h>

/* A tag with more attributes than this is declined. */
#define FENNEL_XML_FAST_MAX_ATTRIBUTES 32

typedef struct {
    uint32_t tag_line, tag_col; /* where the current tag starts (1-based) */
    /* During a start_element call: the length of each attribute name, so that a reader can
     * tell names apart without measuring them. NULL otherwise. */
    const uint32_t *name_len;
} FennelXmlFast;

typedef enum {
    FENNEL_XML_FAST_DONE,     /* the whole text was read */
    FENNEL_XML_FAST_DECLINED, /* use GMarkup */
    FENNEL_XML_FAST_ERROR,    /* a callback failed and set the error */
} FennelXmlFastResult;

/* Scans the text, calling parser->start_element and parser->end_element (with a NULL
 * context) and nothing else. */
FennelXmlFastResult fennel_xml_fast_parse(FennelXmlFast *x, const char *data, gsize length,
                                          const GMarkupParser *parser, gpointer user_data,
                                          GError **error);

#endif
