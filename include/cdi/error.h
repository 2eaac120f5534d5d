/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CDI_ERROR_H
#define CDI_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every libcdi call that can fail returns 0 or a negative errno (NULL for pointers) and takes,
 * last, a caller-owned report that collects what went wrong: one problem per finding, each
 * with its place (file, line, column, field path), so a validator can report every problem of
 * a file in one call. Put one on the stack zero-initialised, pass it to as many calls as you
 * like, read it with the functions below and free what it holds with cdi_error_reset():
 *
 *	struct cdi_error err = CDI_ERROR_INIT;
 *	if (cdi_spec_load_file(path, 0, &spec, &err) < 0)
 *		for (size_t i = 0; i < cdi_error_count(&err); i++)
 *			fprintf(stderr, "%s\n", cdi_problem_text(cdi_error_problem(&err, i)));
 *	cdi_error_reset(&err);
 *
 * The members are private: the problems live behind one pointer, so the struct keeps its size
 * while problems learn more. Passing NULL for the report is allowed: the calls still fail with
 * their code and only the text is lost.
 */
struct cdi_error {
	int _code;
	struct cdi_problem_list *_list;
};

#define CDI_ERROR_INIT                                                                             \
	{                                                                                          \
		0, NULL                                                                            \
	}

/* One problem found in one place; owned by the report it is in. */
typedef struct cdi_problem cdi_problem;

/* Free every problem and return err to its zero state; NULL is fine. */
void cdi_error_reset(struct cdi_error *err);

/* The first negative errno reported, 0 when nothing failed. */
int cdi_error_code(const struct cdi_error *err);

/* The number of problems, and problem i in the order they were found (NULL past the end). */
size_t cdi_error_count(const struct cdi_error *err);
const cdi_problem *cdi_error_problem(const struct cdi_error *err, size_t i);

/* The text of the first problem, or "" when there is none. */
const char *cdi_error_message(const struct cdi_error *err);

/* "file:line:column: field: message", with only the parts that are known: ready to print. */
const char *cdi_problem_text(const cdi_problem *p);
/* The problem alone, without its place. */
const char *cdi_problem_message(const cdi_problem *p);
/* The file as the caller named it, and the field path (devices[1].containerEdits.env[0]); NULL
 * when not known. */
const char *cdi_problem_file(const cdi_problem *p);
const char *cdi_problem_field(const cdi_problem *p);
/* 1-based; 0 when not known. */
unsigned cdi_problem_line(const cdi_problem *p);
unsigned cdi_problem_column(const cdi_problem *p);

#ifdef __cplusplus
}
#endif

#endif
