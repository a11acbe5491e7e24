#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic; Swift needs one wrapper per argument type.
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_setopt_xferinfo(CURL *h, CURLoption o, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
