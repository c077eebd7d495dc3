/* loaded.c: the kit's runner's code, a shared object loaded at run time
 * (see code.h). */
#include <dlfcn.h>
#include <stddef.h>

#include "code.h"

static void *object_handle;

const char *code_load(const char *object)
{
    if (!object || !object[0])
        return "no shared object was named";
    object_handle = dlopen(object, RTLD_NOW | RTLD_LOCAL);
    if (!object_handle) {
        const char *why = dlerror();
        return why ? why : "?";
    }
    return NULL;
}

void *code_symbol(const char *name)
{
    if (!object_handle)
        return NULL;
    dlerror();
    return dlsym(object_handle, name);
}

int code_built_in(void) { return 0; }
