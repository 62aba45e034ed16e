#ifndef POLYVOICE_CYAML_SHIM_H
#define POLYVOICE_CYAML_SHIM_H
/* libyaml's event parser (scenario files); the event union is read through small accessors. */
#include <yaml.h>

static inline const char *pv_yaml_scalar_value(const yaml_event_t *e) { return (const char *)e->data.scalar.value; }
static inline size_t pv_yaml_scalar_length(const yaml_event_t *e) { return e->data.scalar.length; }
static inline int pv_yaml_scalar_plain(const yaml_event_t *e) { return e->data.scalar.plain_implicit; }
#endif
