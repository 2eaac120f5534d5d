/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cdi/memory.h>

#include "array.h"
#include "macro.h"
#include "strv.h"

int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), strv_cmp);
}

size_t strv_length(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void strv_free(char **v)
{
	strv_free_n(v, strv_length(v));
}

_public_ void cdi_strv_free(char **strv)
{
	strv_free(strv);
}

_public_ void cdi_free(void *p)
{
	free(p);
}

int strv_builder_take(struct strv_builder *b, char *s)
{
	if (!s)
		return -ENOMEM;
	if (ARRAY_RESERVE(b->v, b->cap, b->n + 2) < 0) {
		free(s);
		return -ENOMEM;
	}
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
	return 0;
}

int strv_builder_addn(struct strv_builder *b, const char *s, size_t len)
{
	return strv_builder_take(b, strndup(s, len));
}

int strv_builder_add(struct strv_builder *b, const char *s)
{
	return strv_builder_take(b, strdup(s));
}

char **strv_builder_steal(struct strv_builder *b, size_t *ret_n)
{
	char **v;

	if (!b->v && ARRAY_RESERVE(b->v, b->cap, 1) < 0)
		return NULL;
	b->v[b->n] = NULL;
	v = b->v;
	if (ret_n)
		*ret_n = b->n;
	*b = (struct strv_builder){ 0 };
	return v;
}

void strv_builder_clear(struct strv_builder *b)
{
	strv_free_n(b->v, b->n);
	*b = (struct strv_builder){ 0 };
}

bool strv_contains(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

int strv_set_add(struct strv_set *s, const char *str)
{
	const char *copy;

	if (cdi_strmap_get(&s->seen, str, strlen(str)))
		return 0;
	if (strv_builder_add(&s->b, str) < 0)
		return -ENOMEM;
	copy = s->b.v[s->b.n - 1];
	if (cdi_strmap_put(&s->seen, copy, strlen(copy), s->b.n - 1) < 0)
		return -ENOMEM;
	return 1;
}

char **strv_set_steal(struct strv_set *s, size_t *ret_n)
{
	char **v = strv_builder_steal(&s->b, ret_n);

	strv_set_clear(s);
	return v;
}

void strv_set_clear(struct strv_set *s)
{
	strv_builder_clear(&s->b);
	cdi_strmap_free(&s->seen);
}
