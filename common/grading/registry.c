/* registry.c: a lab's items from the GRADE_ITEM declarations of its suite
 * (grade.h).  Each declaration leaves a pointer to its item in the linker
 * section grade_items, whatever suite it is in; the linker gives the
 * section's bounds as __start_grade_items and __stop_grade_items.  A suite's
 * GRADE_LAB takes, before main() runs, the items declared in its own file,
 * in the order they are written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grade.h"

/* weak: a program with no item at all still links (an empty table) */
extern const grade_item *const __start_grade_items[] __attribute__((weak));
extern const grade_item *const __stop_grade_items[] __attribute__((weak));

static int by_line(const void *a, const void *b)
{
    const grade_item *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

void grade_registry_collect(grade_lab *lab, const char *file)
{
    long count = 0;
    for (const grade_item *const *entry = __start_grade_items; entry < __stop_grade_items; entry++)
        count += strcmp((*entry)->file, file) == 0;
    grade_item *items = calloc((size_t)count + 1, sizeof *items);
    if (!items) {
        fprintf(stderr, "grader: out of memory for the items of lab %d\n", lab->number);
        exit(2);
    }
    long n = 0;
    for (const grade_item *const *entry = __start_grade_items; entry < __stop_grade_items; entry++)
        if (strcmp((*entry)->file, file) == 0)
            items[n++] = **entry;
    qsort(items, (size_t)n, sizeof *items, by_line);
    lab->items = items;
    lab->item_count = (int)n;
}
