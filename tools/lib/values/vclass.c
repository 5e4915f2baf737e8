/* vclass.c: the names of the value classes; the tests are inline in vclass.h. */
#include "values/vclass.h"

const char *vc_name(vclass c)
{
    static const char *const names[VC_NCLASSES] = {"small", "pointer", "incompressible"};
    return (unsigned)c < VC_NCLASSES ? names[c] : "?";
}
