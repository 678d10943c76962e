/*
 * tid.h - the tid layout (docs/protocol.md), for pvm3 and its routes.
 */
#ifndef PVM3_TID_H
#define PVM3_TID_H

#define PVMI_TIDPVMD  ((int)0x80000000)
#define PVMI_TIDGID   0x40000000
#define PVMI_TIDHOST  0x3ffc0000
#define PVMI_TIDLOCAL 0x0003ffff
#define PVMI_IS_TASK(t) ((((unsigned)(t)) & 0xc0000000u) == 0 && ((t) & PVMI_TIDLOCAL) != 0)

#endif /* PVM3_TID_H */
