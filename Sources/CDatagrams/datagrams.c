// sendmmsg(2) and struct mmsghdr are GNU extensions, which Swift's Glibc module does not show.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#include "datagrams.h"

int dfu_send_datagrams(int fd, const struct iovec *datagrams, unsigned int count, int flags) {
    struct mmsghdr messages[DFU_DATAGRAMS_PER_CALL];
    if (count > DFU_DATAGRAMS_PER_CALL) {
        count = DFU_DATAGRAMS_PER_CALL;
    }
    memset(messages, 0, sizeof(messages[0]) * count);
    for (unsigned int index = 0; index < count; index++) {
        // sendmmsg only reads the vectors
        messages[index].msg_hdr.msg_iov = (struct iovec *)&datagrams[index];
        messages[index].msg_hdr.msg_iovlen = 1;
    }
    return sendmmsg(fd, messages, count, flags);
}
