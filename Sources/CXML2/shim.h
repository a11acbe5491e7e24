#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy Foundation ships
// (_FoundationICU). We never touch the ICU members of xmlCharEncodingHandler, so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// libxml2 reports some errors through its generic handler whatever the parse options say (an
// input its encoder cannot convert: "I/O error : encoder error"), and that handler writes to
// stderr. Library code prints nothing, so the thread that parses sets this one, which drops them;
// the handler is per thread in a threaded libxml2. The errors still reach the parser context's
// lastError, which is what the ingest reads.
static inline void cxml2_drop_generic_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }
static inline void cxml2_silence_generic_errors(void) { xmlSetGenericErrorFunc(NULL, cxml2_drop_generic_error); }
