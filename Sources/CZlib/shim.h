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

/* A gzip stream (RFC 1952: windowBits 15 + 16) for catalog parts: the header zlib writes has
   mtime 0 and no name, so the same bytes in give the same bytes out. */
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/* Inflate of a gzip stream only (windowBits 15 + 16: zlib's automatic detection, +32, is not wanted). */
static inline int czlib_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
