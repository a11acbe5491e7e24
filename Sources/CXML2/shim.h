#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy Foundation ships
// (_FoundationICU). We never touch the ICU members of xmlCharEncodingHandler, so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
