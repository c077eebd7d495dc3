/* Writes a reply of its own into the grader's channel (fd 3), before the
 * grader has sent the call it would answer: after each real sum, a thread
 * waits a little (the grader reads the real answer meanwhile) and writes a
 * well-formed "call returned 12345" with no request number, as a runner
 * would have before replies were numbered.  The grader must see a reply
 * that answers nothing, never take it for the next call's answer.
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_rejects
#include <pthread.h>

static void *attack_early_reply(void *unused)
{
    (void)unused;
    usleep(20000);
    int forged = 12345;
    unsigned char body[8 + sizeof forged];
    unsigned long long size = sizeof forged;
    memcpy(body, &size, 8);
    memcpy(body + 8, &forged, sizeof forged);
    unsigned long long header[2] = {100 /* WIRE_OK */, sizeof body};
    (void)!write(3, header, sizeof header);
    (void)!write(3, body, sizeof body);
    return NULL;
}

extern "C" int fold_sum(const int *a, int n)
{
    int sum = fold_sum_hijacked(a, n);
    pthread_t t;
    if (pthread_create(&t, NULL, attack_early_reply, NULL) == 0)
        pthread_detach(t);
    return sum;
}
