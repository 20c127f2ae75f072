#ifndef DFU_DATAGRAMS_H
#define DFU_DATAGRAMS_H

#include <sys/uio.h>

/// Sends up to `count` datagrams on the socket `fd`, datagram i holding `datagrams[i]`, in one
/// sendmmsg(2) call with `flags`. Returns how many went out (at most `DFU_DATAGRAMS_PER_CALL`),
/// or -1 with errno set when none did.
int dfu_send_datagrams(int fd, const struct iovec *datagrams, unsigned int count, int flags);

/// The most datagrams one `dfu_send_datagrams` call sends.
#define DFU_DATAGRAMS_PER_CALL 64

#endif
