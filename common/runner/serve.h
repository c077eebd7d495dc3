/* serve.h: what a lab's described calls need inside the runner (see
 * common/grading/calls.h, which expands the descriptions into serve_NAME
 * functions that use these). */
#ifndef SERVE_H
#define SERVE_H

#include <stddef.h>

typedef struct serve_state serve_state;

/* Unpacking the arguments, in order.  A value must have exactly `size`
 * bytes; an array is copied into memory of the runner's own (NULL when the
 * grader sent none) and, when the grader asked for it back, returned after
 * the call. */
void serve_value(serve_state *s, void *out, size_t size);
void *serve_array(serve_state *s, size_t element_size);
int serve_bad(const serve_state *s); /* the request did not match the description: answered already */

/* Around the call itself: output captured, then the reply sent. */
void serve_before(serve_state *s);
void serve_after(serve_state *s, const void *ret, size_t ret_size);

typedef struct {
    const char *name;
    void (*serve)(void *fn, serve_state *s);
} serve_entry;

typedef struct {
    const char *dir;             /* "lab3-folding" */
    const serve_entry *entries;
    int count;
} serve_lab;

extern const serve_lab *const serve_labs[]; /* made by the build, one per lab */

#endif /* SERVE_H */
