/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lines of cdi-runtime's config file (runtime_config.h has the format): "key = value",
 * '#' comments, blank lines, a value bare up to a comment or double-quoted. The one reading of
 * that text, shared by the settings parser and the passthrough taken before libc starts
 * (fast_exec.h): so it calls nothing, not even libc's string functions.
 */
#ifndef CDIKIT_APPLY_CONFIG_LEX_H
#define CDIKIT_APPLY_CONFIG_LEX_H

#include <stddef.h>

struct config_lexer {
	const char *p, *end;
	unsigned line; /* of the entry last returned */
};

/* One "key = value": spans into the text, the key without blanks around it, the value
 * without its quotes. */
struct config_entry {
	const char *key, *value;
	size_t key_len, value_len;
	unsigned line;
};

enum config_lex_result {
	CONFIG_LEX_END = 0,	    /* no more entries */
	CONFIG_LEX_ENTRY = 1,	    /* *e is the next entry */
	CONFIG_LEX_NO_EQUALS = -1,  /* a line with no '=' (e->line says which) */
	CONFIG_LEX_OPEN_QUOTE = -2, /* a quoted value not closed, or followed by more than a
				     * comment (e->key and e->line are set) */
};

static inline void config_lex_init(struct config_lexer *lx, const char *text, size_t len)
{
	lx->p = text;
	lx->end = text + len;
	lx->line = 0;
}

/* The next entry, skipping blank and comment lines. */
enum config_lex_result config_lex_next(struct config_lexer *lx, struct config_entry *e);

#endif
