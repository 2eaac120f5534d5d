/* SPDX-License-Identifier: Apache-2.0 */
/* Freestanding (config_lex.h): loops instead of memchr and strndup. */
#include "config_lex.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *find(const char *p, const char *end, char c)
{
	while (p < end && *p != c)
		p++;
	return p;
}

/* The value from p (after '=') to eol: quoted, or bare up to a comment. */
static enum config_lex_result lex_value(const char *p, const char *eol, struct config_entry *e)
{
	const char *close, *hash;

	while (p < eol && is_blank(*p))
		p++;
	if (p < eol && *p == '"') {
		close = find(p + 1, eol, '"');
		if (close == eol)
			return CONFIG_LEX_OPEN_QUOTE;
		for (const char *q = close + 1; q < eol && *q != '#'; q++)
			if (!is_blank(*q))
				return CONFIG_LEX_OPEN_QUOTE;
		e->value = p + 1;
		e->value_len = (size_t)(close - p - 1);
		return CONFIG_LEX_ENTRY;
	}
	hash = find(p, eol, '#');
	while (hash > p && is_blank(hash[-1]))
		hash--;
	e->value = p;
	e->value_len = (size_t)(hash - p);
	return CONFIG_LEX_ENTRY;
}

enum config_lex_result config_lex_next(struct config_lexer *lx, struct config_entry *e)
{
	while (lx->p < lx->end) {
		const char *p = lx->p, *eol = find(p, lx->end, '\n'), *eq, *key_end;

		lx->p = eol < lx->end ? eol + 1 : eol;
		lx->line++;
		while (p < eol && is_blank(*p))
			p++;
		if (p == eol || *p == '#')
			continue;
		e->line = lx->line;
		e->key = p;
		e->key_len = 0;
		eq = find(p, eol, '=');
		if (eq == eol)
			return CONFIG_LEX_NO_EQUALS;
		for (key_end = eq; key_end > p && is_blank(key_end[-1]); key_end--)
			;
		e->key_len = (size_t)(key_end - p);
		return lex_value(eq + 1, eol, e);
	}
	return CONFIG_LEX_END;
}
