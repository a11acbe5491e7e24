#include <sqlite3.h>
#include <libxml/xmlversion.h>
// As Sources/CXML2/shim.h: Debian's libxml2 is built with ICU, whose headers clash with the copy
// Foundation ships; nothing here touches ICU.
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlmemory.h>
#include <openssl/crypto.h>

// sqlite3_config is variadic, which Swift cannot call; the fuzz build sets one option with it.
static inline int fuzz_sqlite3_config_malloc(const sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_MALLOC, methods);
}
