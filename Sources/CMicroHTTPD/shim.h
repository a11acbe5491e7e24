#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions; these wrap the two calls CorpusServer needs. */
static inline struct MHD_Daemon *corpus_mhd_start(unsigned int flags, MHD_AccessHandlerCallback dh, void *dh_cls,
                                                  const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, dh, dh_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline const struct sockaddr *corpus_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

static inline int corpus_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The size of the request line and headers as received, 0 when libmicrohttpd does not say. */
static inline size_t corpus_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/* What the connection-notify callback stored in the connection's socket context, or NULL. */
static inline void *corpus_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}
