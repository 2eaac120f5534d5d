/* SPDX-License-Identifier: Apache-2.0 */
/* The ELF reader lives in schema/elf_read.h (the applier reads libraries too); this name stays for
 * the generator's includes. schema/ cannot hold an elf.h: it is on the include path and would
 * shadow the system <elf.h>. */
#include "elf_read.h"
