#include <stdlib.h>
#include <isa-l/igzip_lib.h>
#include <isa-l/crc.h>

/* ISA-L's level buffers are sized by macros Swift cannot import: the default ("large") buffer of level 3. */
static inline size_t cisal_level3_buffer_size(void) {
    return ISAL_DEF_LVL3_DEFAULT;
}

/* Deflates `count` bytes at `input` into `output` at level 3 as one piece of a longer raw deflate
   stream (RFC 1951, no wrapper): primed with the `dictionary_count` bytes before it, and ended
   with a sync flush (an empty stored block, byte-aligned, no final bit) or, when `last`, with the
   final block. `level_buffer` is cisal_level3_buffer_size() bytes of scratch.
   Returns the bytes written, or -1 when ISA-L failed or `capacity` was too small. */
static inline long cisal_deflate_piece(const unsigned char *input, unsigned int count,
                                       const unsigned char *dictionary, unsigned int dictionary_count,
                                       int last, unsigned char *level_buffer,
                                       unsigned char *output, unsigned int capacity) {
    struct isal_zstream stream;
    isal_deflate_init(&stream);
    stream.level = 3;
    stream.level_buf = level_buffer;
    stream.level_buf_size = ISAL_DEF_LVL3_DEFAULT;
    stream.gzip_flag = IGZIP_DEFLATE;
    stream.flush = last ? NO_FLUSH : SYNC_FLUSH;
    stream.end_of_stream = last ? 1 : 0;
    if (dictionary_count > 0 && isal_deflate_set_dict(&stream, (unsigned char *)dictionary, dictionary_count) != COMP_OK) {
        return -1;
    }
    stream.next_in = (unsigned char *)input;
    stream.avail_in = count;
    stream.next_out = output;
    stream.avail_out = capacity;
    if (isal_deflate(&stream) != COMP_OK || stream.avail_in != 0 || stream.avail_out == 0) {
        return -1;
    }
    /* A completed sync flush leaves the stream ready for a new block header; a finished one at its end. */
    if (stream.internal_state.state != (last ? ZSTATE_END : ZSTATE_NEW_HDR)) {
        return -1;
    }
    return (long)stream.total_out;
}
