/* list.c: `./grader list`, what each lab's items are, made from the items'
 * GRADE_ITEM declarations (grade.h), in two forms:
 *
 *   ./grader list                     every lab, its points, each item with its TODOs and title
 *   ./grader list --markdown LAB      LAB's table of items for its handout
 *                                     (tools/handout-facts.sh puts it there)
 */
#include <stdio.h>
#include <string.h>
#include "grader.h"

static const grade_lab *lab_named(const char *name)
{
    char short_name[32];
    for (int i = 0; grade_labs[i]; i++) {
        const grade_lab *lab = grade_labs[i];
        snprintf(short_name, sizeof short_name, "lab%d", lab->number);
        if (strcmp(name, lab->dir) == 0 || strcmp(name, lab->name) == 0 || strcmp(name, short_name) == 0)
            return lab;
    }
    return NULL;
}

/* "TODO 3", "TODOs 3,4" or "" */
static const char *todo_column(const grade_item *item, char *buffer, size_t size)
{
    if (!item->todos || !item->todos[0])
        return "";
    snprintf(buffer, size, "TODO%s %s", strchr(item->todos, ',') ? "s" : "", item->todos);
    return buffer;
}

static void list_text(void)
{
    char todos[64];
    for (int i = 0; grade_labs[i]; i++) {
        const grade_lab *lab = grade_labs[i];
        double points = 0, further = 0;
        for (int k = 0; k < lab->item_count; k++)
            *(grade_item_going_further(&lab->items[k]) ? &further : &points) += lab->items[k].points;
        printf("%-22s ./grader lab%d   %d items, %g points", lab->dir, lab->number, lab->item_count, points);
        if (further > 0) /* reported apart, never in a total (grade.h) */
            printf(" (and %g going further, not counted)", further);
        printf("\n");
        for (int k = 0; k < lab->item_count; k++) {
            const grade_item *item = &lab->items[k];
            printf("    %-24s %5g  %-13s %s%s\n", item->name, item->points, todo_column(item, todos, sizeof todos),
                   item->title,
                   item->kind == GRADE_PERFORMANCE ? " (gpu only)" : item->kind == GRADE_SANITIZER ? " (gpu, sanitizer)" : "");
        }
    }
}

/* The handout's table: one row per item, its words (else its title). */
static void list_markdown(const grade_lab *lab)
{
    printf("| item | points | TODO | what |\n|---|---|---|---|\n");
    for (int k = 0; k < lab->item_count; k++) {
        const grade_item *item = &lab->items[k];
        const char *what = item->what && item->what[0] ? item->what : item->title;
        printf("| `%s` | %g | %s | %s |\n", item->name, item->points, item->todos && item->todos[0] ? item->todos : "",
               what);
    }
}

int grade_list(int argc, char **argv)
{
    if (argc == 0) {
        list_text();
        return 0;
    }
    if (argc == 2 && strcmp(argv[0], "--markdown") == 0) {
        const grade_lab *lab = lab_named(argv[1]);
        if (lab) {
            list_markdown(lab);
            return 0;
        }
        fprintf(stderr, "grader: no lab named %s\n", argv[1]);
        return 2;
    }
    fprintf(stderr, "usage: ./grader list [--markdown LAB]\n");
    return 2;
}
