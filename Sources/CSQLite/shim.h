#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call; these fixed-arity
// wrappers cover the options the engine sets.
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}

// sqlite3_config is variadic too. Off, SQLite keeps no count of its allocations, which it
// otherwise updates under one process-wide mutex at every malloc and free.
static inline int csqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
