/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cdi-runtime's passthrough before libc starts. Engines call the runtime three to six times
 * per container (create, start, state, kill, delete); all but create are an exec of runc, and
 * a static glibc program spends most of such a run starting libc (where CPUID traps, as under
 * KVM, half a millisecond). So the static build enters here first (the ELF entry point,
 * cdikit_fast_entry): when the command is not create or run, no option of ours or --help or
 * --version is given, and the config file is absent or sets nothing a passthrough could fail
 * on, the runtime is found and exec'd with raw system calls. Anything else, or any failure,
 * goes on to libc's _start and the full program, which decides as it always did: this path
 * only ever does what that one would have done (tests/unit/test-runtime-fast-exec.c holds the
 * two side by side).
 *
 * Freestanding: it calls nothing outside fast_exec.c, config_lex.c and runc_flags.c (before
 * _start there is no TLS, so no stack protector, and libc's string functions are IFUNCs not
 * yet resolved); tests/runtime-fast-exec.sh checks the objects' undefined symbols.
 */
#ifndef CDIKIT_APPLY_FAST_EXEC_H
#define CDIKIT_APPLY_FAST_EXEC_H

/* A config file the passthrough reads; a larger one (never a real one) takes the full path. */
#define FAST_EXEC_CONFIG_BYTES 16384

struct fast_exec_plan {
	const char *path; /* the runtime's file */
	const char *name; /* its argv[0]: the configured name, or runc or crun */
	char path_buf[4096];
	char name_buf[256];
	char config[FAST_EXEC_CONFIG_BYTES];
};

/*
 * What cdi-runtime with argv and envp would exec without editing anything: 1 with plan->path
 * and plan->name set (the rest of argv goes as it is), 0 when the full program must decide.
 * default_config is the file read when CDIKIT_CONFIG is unset or empty (RUNTIME_CONFIG_DEFAULT
 * but in tests). Nothing is allocated, nothing but plan written.
 */
int fast_exec_plan(int argc, char **argv, char **envp, const char *default_config,
		   struct fast_exec_plan *plan);

#endif
