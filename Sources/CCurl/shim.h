#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libcurl is loaded with dlopen when the first handle is made (CorpusCurl.CurlEasy), not linked.
// Linked, libcurl and the ~28 libraries it needs (GnuTLS, whose constructor parses its ASN.1
// tables, Kerberos, LDAP, libssh2, ...) were loaded and relocated at every start of every
// `corpus` process, a local search included, which cost more CPU than the search itself
// (docs/engine.md "Start-up"). Only CorpusCurl calls these; it is the one user of this table.
typedef struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    curl_version_info_data *(*version_info)(CURLversion);
} ccurl_functions;

// The state lives in function-local statics: Swift emits a header's inline functions, not its
// file-scope variables.
static inline ccurl_functions *ccurl_storage(void) { static ccurl_functions t; return &t; }
static inline int *ccurl_loaded_flag(void) { static int loaded; return &loaded; }
static inline pthread_once_t *ccurl_once(void) { static pthread_once_t once = PTHREAD_ONCE_INIT; return &once; }
#define ccurl_table (*ccurl_storage())

// Debian's runtime name (libcurl4, the OpenSSL build), then the development symlink.
static inline void ccurl_load_table(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        ccurl_functions t;
        *(void **)&t.global_init = dlsym(h, "curl_global_init");
        *(void **)&t.easy_init = dlsym(h, "curl_easy_init");
        *(void **)&t.easy_cleanup = dlsym(h, "curl_easy_cleanup");
        *(void **)&t.easy_reset = dlsym(h, "curl_easy_reset");
        *(void **)&t.easy_perform = dlsym(h, "curl_easy_perform");
        *(void **)&t.easy_strerror = dlsym(h, "curl_easy_strerror");
        *(void **)&t.easy_setopt = dlsym(h, "curl_easy_setopt");
        *(void **)&t.easy_getinfo = dlsym(h, "curl_easy_getinfo");
        *(void **)&t.slist_append = dlsym(h, "curl_slist_append");
        *(void **)&t.slist_free_all = dlsym(h, "curl_slist_free_all");
        *(void **)&t.version_info = dlsym(h, "curl_version_info");
        if (!t.global_init || !t.easy_init || !t.easy_cleanup || !t.easy_reset || !t.easy_perform || !t.easy_strerror
            || !t.easy_setopt || !t.easy_getinfo || !t.slist_append || !t.slist_free_all || !t.version_info) continue;
        ccurl_table = t;
        *ccurl_loaded_flag() = 1;
        return;
    }
}

/// Loads libcurl once (thread-safe); 0 when it cannot be loaded.
static inline int ccurl_load(void) {
    pthread_once(ccurl_once(), ccurl_load_table);
    return *ccurl_loaded_flag();
}

// The calls below run only after ccurl_load() returned 1 (CurlEasy.init checks it first).
static inline CURLcode ccurl_global_init(long flags) { return ccurl_load() ? ccurl_table.global_init(flags) : CURLE_FAILED_INIT; }
static inline CURL *ccurl_easy_init(void) { return ccurl_load() ? ccurl_table.easy_init() : NULL; }
static inline void ccurl_easy_cleanup(CURL *h) { if (ccurl_load()) ccurl_table.easy_cleanup(h); }
static inline void ccurl_easy_reset(CURL *h) { if (ccurl_load()) ccurl_table.easy_reset(h); }
static inline CURLcode ccurl_easy_perform(CURL *h) { return ccurl_load() ? ccurl_table.easy_perform(h) : CURLE_FAILED_INIT; }
static inline const char *ccurl_easy_strerror(CURLcode c) { return ccurl_load() ? ccurl_table.easy_strerror(c) : "libcurl is not loaded"; }
static inline struct curl_slist *ccurl_slist_append(struct curl_slist *l, const char *s) { return ccurl_load() ? ccurl_table.slist_append(l, s) : l; }
static inline void ccurl_slist_free_all(struct curl_slist *l) { if (ccurl_load()) ccurl_table.slist_free_all(l); }

// The loaded libcurl's version, to name it when it refuses an option. CURLVERSION_FIRST: `version`
// and `version_num` are in the struct's first layout, which every libcurl returns.
static inline const char *ccurl_version(void) {
    curl_version_info_data *d = ccurl_load() ? ccurl_table.version_info(CURLVERSION_FIRST) : NULL;
    return d && d->version ? d->version : "(unknown)";
}
static inline unsigned int ccurl_version_num(void) {
    curl_version_info_data *d = ccurl_load() ? ccurl_table.version_info(CURLVERSION_FIRST) : NULL;
    return d ? d->version_num : 0;
}

// curl_easy_setopt and curl_easy_getinfo are variadic; Swift needs one wrapper per argument type.
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return ccurl_load() ? ccurl_table.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return ccurl_load() ? ccurl_table.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return ccurl_load() ? ccurl_table.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return ccurl_load() ? ccurl_table.easy_setopt(h, o, f) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_xferinfo(CURL *h, CURLoption o, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return ccurl_load() ? ccurl_table.easy_setopt(h, o, f) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return ccurl_load() ? ccurl_table.easy_getinfo(h, i, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return ccurl_load() ? ccurl_table.easy_getinfo(h, i, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_getinfo_str(CURL *h, CURLINFO i, char **v) { return ccurl_load() ? ccurl_table.easy_getinfo(h, i, v) : CURLE_FAILED_INIT; }
