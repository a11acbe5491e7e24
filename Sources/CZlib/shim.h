#include <zlib.h>

/* deflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)), which Swift cannot
   call: a raw deflate stream (RFC 1951, no zlib header), zlib's default memory level and strategy. */
static inline int czlib_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

/* inflateInit2 is a macro too: a raw inflate stream (zip's method 8), the full 32 KiB window. */
static inline int czlib_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}
