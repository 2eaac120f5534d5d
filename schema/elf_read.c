/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal ELF reader: class, machine, DT_SONAME and DT_NEEDED. The file is
 * read with pread, a piece at a time, so a 100 MiB driver library costs a few
 * kilobytes of reads; every offset and size from the file is checked against
 * the file's size (and against the caps in elf.h) before it is used.
 *
 * The dynamic section is found the way the dynamic linker finds it, through
 * PT_DYNAMIC, with DT_STRTAB (a virtual address) mapped to a file offset
 * through the PT_LOAD segment that holds it; objects without program
 * headers fall back to SHT_DYNAMIC and the string table its sh_link names.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_read.h"
#include "macro.h"
#include "problem.h"

#define HEAD_SIZE 4096

struct reader {
	int fd;
	uint64_t size;
	/* The file's first page, read once: the ELF and program headers, often the strings too. */
	char head[HEAD_SIZE];
	size_t head_len;
	const char *path;
	bool swap;
	bool is64;
	struct cdi_error *err;
};

static uint16_t u16(const struct reader *r, uint16_t v)
{
	return r->swap ? __builtin_bswap16(v) : v;
}
static uint32_t u32(const struct reader *r, uint32_t v)
{
	return r->swap ? __builtin_bswap32(v) : v;
}
static uint64_t u64(const struct reader *r, uint64_t v)
{
	return r->swap ? __builtin_bswap64(v) : v;
}

/* Exactly len bytes at off, or an error if any of them is outside the file. */
static int read_at(const struct reader *r, uint64_t off, size_t len, void *buf, const char *what)
{
	size_t got = 0;

	if (off > r->size || len > r->size - off)
		return cdi_fail(r->err, -EINVAL,
				"%s: %s (%zu bytes at offset %llu) is outside the %llu-byte file",
				r->path, what, len, (unsigned long long)off,
				(unsigned long long)r->size);
	if (off <= r->head_len && len <= r->head_len - off) {
		memcpy(buf, r->head + off, len);
		return 0;
	}
	while (got < len) {
		ssize_t n = pread(r->fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0) {
			int e = negative_errno();

			if (e == -EINTR)
				continue;
			return cdi_fail(r->err, e, "%s: read error: %s", r->path, strerror(-e));
		}
		if (n == 0)
			return cdi_fail(r->err, -EINVAL, "%s: %s: file shrank while reading",
					r->path, what);
		got += (size_t)n;
	}
	return 0;
}

/* The location of the dynamic section and its string table, in file offsets. */
struct dyn_loc {
	uint64_t dyn_off, dyn_size;
	uint64_t str_off, str_size;
	bool str_is_addr; /* str_off is DT_STRTAB's address, still to be mapped through PT_LOAD */
};

struct load_seg {
	uint64_t vaddr, offset, filesz;
};

/* One program header, whatever the class and byte order. */
static void phdr_get(const struct reader *r, const char *p, uint32_t *type, uint64_t *offset,
		     uint64_t *vaddr, uint64_t *filesz)
{
	if (r->is64) {
		Elf64_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*type = u32(r, ph.p_type);
		*offset = u64(r, ph.p_offset);
		*vaddr = u64(r, ph.p_vaddr);
		*filesz = u64(r, ph.p_filesz);
	} else {
		Elf32_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*type = u32(r, ph.p_type);
		*offset = u32(r, ph.p_offset);
		*vaddr = u32(r, ph.p_vaddr);
		*filesz = u32(r, ph.p_filesz);
	}
}

/* One section header's fields, whatever the class and byte order; name and align may be NULL. */
static void shdr_get(const struct reader *r, const char *p, uint32_t *type, uint64_t *offset,
		     uint64_t *size, uint32_t *link, uint32_t *name, uint64_t *align)
{
	uint32_t n;
	uint64_t a;

	if (r->is64) {
		Elf64_Shdr sh;

		memcpy(&sh, p, sizeof(sh));
		*type = u32(r, sh.sh_type);
		*offset = u64(r, sh.sh_offset);
		*size = u64(r, sh.sh_size);
		*link = u32(r, sh.sh_link);
		n = u32(r, sh.sh_name);
		a = u64(r, sh.sh_addralign);
	} else {
		Elf32_Shdr sh;

		memcpy(&sh, p, sizeof(sh));
		*type = u32(r, sh.sh_type);
		*offset = u32(r, sh.sh_offset);
		*size = u32(r, sh.sh_size);
		*link = u32(r, sh.sh_link);
		n = u32(r, sh.sh_name);
		a = u32(r, sh.sh_addralign);
	}
	if (name)
		*name = n;
	if (align)
		*align = a;
}

/* Read a table of n entries of entsize bytes (at least min_entsize) at off. */
static int read_table(const struct reader *r, uint64_t off, uint16_t n, uint16_t entsize,
		      size_t min_entsize, const char *what, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	int e;

	if (entsize < min_entsize)
		return cdi_fail(r->err, -EINVAL, "%s: %s entry size %u is smaller than %zu",
				r->path, what, entsize, min_entsize);
	if (n > ELF_MAX_HEADERS)
		return cdi_fail(r->err, -EINVAL, "%s: %u %s, more than the limit of %u", r->path, n,
				what, ELF_MAX_HEADERS);
	/* Checked before allocating: a hostile count times entry size could ask for 256 MiB. */
	if (off > r->size || (uint64_t)n * entsize > r->size - off)
		return cdi_fail(r->err, -EINVAL,
				"%s: %u %s of %u bytes at offset %llu run past the %llu-byte file",
				r->path, n, what, entsize, (unsigned long long)off,
				(unsigned long long)r->size);
	buf = malloc((size_t)n * entsize + 1);
	if (!buf)
		return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
	e = read_at(r, off, (size_t)n * entsize, buf, what);
	if (e < 0)
		return e;
	*ret = TAKE_PTR(buf);
	return 0;
}

/* PT_DYNAMIC: 1 and *loc filled when found, 0 when the file has none. */
static int locate_by_segments(const struct reader *r, uint64_t phoff, uint16_t phnum,
			      uint16_t phentsize, struct dyn_loc *loc, struct load_seg **ret_loads,
			      size_t *ret_n_loads)
{
	_cleanup_free_ char *tab = NULL;
	_cleanup_free_ struct load_seg *loads = NULL;
	size_t n_loads = 0;
	bool found = false;
	int e;

	if (phnum == 0)
		return 0;
	e = read_table(r, phoff, phnum, phentsize,
		       r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), "program headers", &tab);
	if (e < 0)
		return e;
	loads = calloc(phnum, sizeof(*loads));
	if (!loads)
		return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
	for (uint16_t i = 0; i < phnum; i++) {
		uint32_t type;
		uint64_t offset, vaddr, filesz;

		phdr_get(r, tab + (size_t)i * phentsize, &type, &offset, &vaddr, &filesz);
		if (type == PT_LOAD)
			loads[n_loads++] = (struct load_seg){ vaddr, offset, filesz };
		else if (type == PT_DYNAMIC && !found) {
			loc->dyn_off = offset;
			loc->dyn_size = filesz;
			found = true;
		}
	}
	if (!found)
		return 0;
	*ret_loads = TAKE_PTR(loads);
	*ret_n_loads = n_loads;
	return 1;
}

/* SHT_DYNAMIC and the string table it links to: 1 when found, 0 when absent. */
static int locate_by_sections(const struct reader *r, uint64_t shoff, uint16_t shnum,
			      uint16_t shentsize, struct dyn_loc *loc)
{
	_cleanup_free_ char *tab = NULL;
	size_t min = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	int e;

	if (shnum == 0 || shoff == 0)
		return 0;
	e = read_table(r, shoff, shnum, shentsize, min, "section headers", &tab);
	if (e < 0)
		return e;
	for (uint16_t i = 0; i < shnum; i++) {
		uint32_t type, link, stype, slink;
		uint64_t offset, size;

		shdr_get(r, tab + (size_t)i * shentsize, &type, &offset, &size, &link, NULL, NULL);
		if (type != SHT_DYNAMIC)
			continue;
		if (link == 0 || link >= shnum)
			return cdi_fail(r->err, -EINVAL,
					"%s: dynamic section %u links to section %u of %u", r->path,
					i, link, shnum);
		loc->dyn_off = offset;
		loc->dyn_size = size;
		shdr_get(r, tab + (size_t)link * shentsize, &stype, &loc->str_off, &loc->str_size,
			 &slink, NULL, NULL);
		if (stype != SHT_STRTAB)
			return cdi_fail(
				r->err, -EINVAL,
				"%s: dynamic section %u links to section %u, which is not a string table",
				r->path, i, link);
		loc->str_is_addr = false;
		return 1;
	}
	return 0;
}

/*
 * A NUL-terminated string at idx of the string table, at most ELF_MAX_STRING
 * bytes. Names are short: a first small read usually holds the whole string.
 */
static int read_string(const struct reader *r, const struct dyn_loc *loc, uint64_t idx,
		       const char *what, char **ret)
{
	char buf[ELF_MAX_STRING];
	size_t len, first;
	char *nul;
	int e;

	if (idx >= loc->str_size)
		return cdi_fail(r->err, -EINVAL,
				"%s: %s at string offset %llu, past the %llu-byte string table",
				r->path, what, (unsigned long long)idx,
				(unsigned long long)loc->str_size);
	if (loc->str_off > r->size || idx >= r->size - loc->str_off)
		return cdi_fail(r->err, -EINVAL, "%s: %s at string offset %llu is outside the file",
				r->path, what, (unsigned long long)idx);
	len = loc->str_size - idx < sizeof(buf) ? (size_t)(loc->str_size - idx) : sizeof(buf);
	if (len > r->size - loc->str_off - idx)
		len = (size_t)(r->size - loc->str_off - idx);
	first = len < 128 ? len : 128;
	e = read_at(r, loc->str_off + idx, first, buf, what);
	if (e < 0)
		return e;
	nul = memchr(buf, '\0', first);
	if (!nul && len > first) {
		e = read_at(r, loc->str_off + idx + first, len - first, buf + first, what);
		if (e < 0)
			return e;
		nul = memchr(buf + first, '\0', len - first);
	}
	if (!nul)
		return cdi_fail(r->err, -EINVAL,
				"%s: %s at string offset %llu is not terminated within %zu bytes",
				r->path, what, (unsigned long long)idx, len);
	*ret = strdup(buf);
	if (!*ret)
		return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
	return 0;
}

/* The tag and value of the dynamic entry at p, in the file's byte order and class. */
static void dyn_entry(const struct reader *r, const char *p, int64_t *ret_tag, uint64_t *ret_val)
{
	if (r->is64) {
		Elf64_Dyn d;

		memcpy(&d, p, sizeof(d));
		*ret_tag = (int64_t)u64(r, (uint64_t)d.d_tag);
		*ret_val = u64(r, d.d_un.d_val);
	} else {
		Elf32_Dyn d;

		memcpy(&d, p, sizeof(d));
		*ret_tag = (int32_t)u32(r, (uint32_t)d.d_tag);
		*ret_val = u32(r, d.d_un.d_val);
	}
}

/* Where DT_STRTAB's address strtab lies in the file, through the loaded segment holding it; its
 * size bounded by the segment and by DT_STRSZ (strsz, when given). */
static int strtab_in_file(const struct reader *r, struct dyn_loc *loc, const struct load_seg *loads,
			  size_t n_loads, uint64_t strtab, const uint64_t *strsz)
{
	const struct load_seg *seg = NULL;

	for (size_t i = 0; i < n_loads; i++)
		if (loads[i].vaddr <= strtab && strtab - loads[i].vaddr < loads[i].filesz) {
			seg = &loads[i];
			break;
		}
	if (!seg)
		return cdi_fail(r->err, -EINVAL,
				"%s: DT_STRTAB address 0x%llx is in no loaded segment", r->path,
				(unsigned long long)strtab);
	loc->str_off = seg->offset + (strtab - seg->vaddr);
	loc->str_size = seg->filesz - (strtab - seg->vaddr);
	if (strsz && *strsz < loc->str_size)
		loc->str_size = *strsz;
	if (loc->str_off < seg->offset)
		return cdi_fail(r->err, -EINVAL, "%s: DT_STRTAB offset overflows", r->path);
	return 0;
}

static int read_dynamic(const struct reader *r, struct dyn_loc *loc, const struct load_seg *loads,
			size_t n_loads, unsigned flags, struct elf_info *info)
{
	_cleanup_free_ char *dyn = NULL;
	_cleanup_free_ uint64_t *needed = NULL;
	size_t entsize = r->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t n, soname = 0, strtab = 0, strsz = 0;
	size_t n_needed = 0;
	bool has_soname = false, has_strtab = false, has_strsz = false;
	int e;

	n = loc->dyn_size / entsize;
	if (n > ELF_MAX_DYNAMIC)
		return cdi_fail(r->err, -EINVAL,
				"%s: dynamic section of %llu entries, more than the limit of %u",
				r->path, (unsigned long long)n, ELF_MAX_DYNAMIC);
	if (loc->dyn_off > r->size || n * entsize > r->size - loc->dyn_off)
		return cdi_fail(
			r->err, -EINVAL,
			"%s: dynamic section (%llu bytes at offset %llu) runs past the %llu-byte file",
			r->path, (unsigned long long)(n * entsize),
			(unsigned long long)loc->dyn_off, (unsigned long long)r->size);
	dyn = malloc(n * entsize + 1);
	if (!dyn)
		return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
	if (flags & ELF_READ_NEEDED) {
		needed = malloc(ELF_MAX_NEEDED * sizeof(*needed));
		if (!needed)
			return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
	}
	e = read_at(r, loc->dyn_off, n * entsize, dyn, "dynamic section");
	if (e < 0)
		return e;
	info->has_dynamic = 1;

	for (uint64_t i = 0; i < n; i++) {
		int64_t tag;
		uint64_t val;

		dyn_entry(r, dyn + i * entsize, &tag, &val);
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_SONAME:
			soname = val;
			has_soname = true;
			break;
		case DT_NEEDED:
			if (!(flags & ELF_READ_NEEDED))
				break;
			if (n_needed >= ELF_MAX_NEEDED)
				return cdi_fail(r->err, -EINVAL,
						"%s: more than %u DT_NEEDED entries", r->path,
						ELF_MAX_NEEDED);
			needed[n_needed++] = val;
			break;
		case DT_STRTAB:
			strtab = val;
			has_strtab = true;
			break;
		case DT_STRSZ:
			strsz = val;
			has_strsz = true;
			break;
		}
	}
	if (!has_soname && n_needed == 0)
		return 0;

	if (loc->str_is_addr) {
		if (!has_strtab)
			return cdi_fail(r->err, -EINVAL,
					"%s: dynamic section names strings but has no DT_STRTAB",
					r->path);
		e = strtab_in_file(r, loc, loads, n_loads, strtab, has_strsz ? &strsz : NULL);
		if (e < 0)
			return e;
	}
	if (loc->str_off > r->size)
		return cdi_fail(r->err, -EINVAL,
				"%s: dynamic string table at offset %llu is outside the file",
				r->path, (unsigned long long)loc->str_off);

	if (has_soname) {
		e = read_string(r, loc, soname, "DT_SONAME", &info->soname);
		if (e < 0)
			return e;
	}
	if (n_needed) {
		info->needed = calloc(n_needed, sizeof(*info->needed));
		if (!info->needed)
			return cdi_fail(r->err, -ENOMEM, "%s: out of memory", r->path);
		for (size_t i = 0; i < n_needed; i++) {
			e = read_string(r, loc, needed[i], "DT_NEEDED", &info->needed[i]);
			if (e < 0)
				return e;
			info->n_needed++;
		}
	}
	return 0;
}

void elf_info_clear(struct elf_info *info)
{
	if (!info)
		return;
	free(info->soname);
	for (size_t i = 0; i < info->n_needed; i++)
		free(info->needed[i]);
	free(info->needed);
	*info = (struct elf_info){ 0 };
}

/* What the ELF header says, whatever the class and byte order. */
struct elf_head {
	unsigned char elf_class, data;
	uint16_t type, machine;
	uint64_t phoff, shoff;
	uint16_t phnum, phentsize, shnum, shentsize, shstrndx;
};

/* Check fd is a regular ELF file and read its header into h; r is set up for reading it. */
static int reader_open(struct reader *r, int fd, const char *path, struct elf_head *h,
		       struct cdi_error *err)
{
	unsigned char ident[EI_NIDENT];
	struct stat st;
	int e;

	*r = (struct reader){ .fd = fd, .path = path ? path : "ELF file", .err = err };
	if (fstat(fd, &st) < 0) {
		e = negative_errno();
		return cdi_fail(err, e, "%s: cannot stat: %s", r->path, strerror(-e));
	}
	if (!S_ISREG(st.st_mode))
		return cdi_fail(err, -EINVAL, "%s: not a regular file", r->path);
	r->size = (uint64_t)st.st_size;

	if (r->size < EI_NIDENT)
		return cdi_fail(err, -EINVAL, "%s: not an ELF file (%llu bytes)", r->path,
				(unsigned long long)r->size);
	e = read_at(r, 0, r->size < HEAD_SIZE ? (size_t)r->size : HEAD_SIZE, r->head,
		    "ELF headers");
	if (e < 0)
		return e;
	r->head_len = r->size < HEAD_SIZE ? (size_t)r->size : HEAD_SIZE;
	e = read_at(r, 0, EI_NIDENT, ident, "ELF identification");
	if (e < 0)
		return e;
	if (memcmp(ident, ELFMAG, SELFMAG) != 0)
		return cdi_fail(err, -EINVAL, "%s: not an ELF file (bad magic)", r->path);
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return cdi_fail(err, -EINVAL, "%s: unknown ELF class %u", r->path, ident[EI_CLASS]);
	if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
		return cdi_fail(err, -EINVAL, "%s: unknown ELF byte order %u", r->path,
				ident[EI_DATA]);
	r->is64 = ident[EI_CLASS] == ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	r->swap = ident[EI_DATA] == ELFDATA2MSB;
#else
	r->swap = ident[EI_DATA] == ELFDATA2LSB;
#endif
	*h = (struct elf_head){ .elf_class = ident[EI_CLASS], .data = ident[EI_DATA] };

	if (r->is64) {
		Elf64_Ehdr eh;

		e = read_at(r, 0, sizeof(eh), &eh, "ELF header");
		if (e < 0)
			return e;
		h->type = u16(r, eh.e_type);
		h->machine = u16(r, eh.e_machine);
		h->phoff = u64(r, eh.e_phoff);
		h->shoff = u64(r, eh.e_shoff);
		h->phnum = u16(r, eh.e_phnum);
		h->phentsize = u16(r, eh.e_phentsize);
		h->shnum = u16(r, eh.e_shnum);
		h->shentsize = u16(r, eh.e_shentsize);
		h->shstrndx = u16(r, eh.e_shstrndx);
	} else {
		Elf32_Ehdr eh;

		e = read_at(r, 0, sizeof(eh), &eh, "ELF header");
		if (e < 0)
			return e;
		h->type = u16(r, eh.e_type);
		h->machine = u16(r, eh.e_machine);
		h->phoff = u32(r, eh.e_phoff);
		h->shoff = u32(r, eh.e_shoff);
		h->phnum = u16(r, eh.e_phnum);
		h->phentsize = u16(r, eh.e_phentsize);
		h->shnum = u16(r, eh.e_shnum);
		h->shentsize = u16(r, eh.e_shentsize);
		h->shstrndx = u16(r, eh.e_shstrndx);
	}
	return 0;
}

int elf_read_fd(int fd, const char *path, unsigned flags, struct elf_info *ret,
		struct cdi_error *err)
{
	struct reader r;
	struct elf_head h;
	struct elf_info info = { 0 };
	_cleanup_free_ struct load_seg *loads = NULL;
	struct dyn_loc loc = { 0 };
	size_t n_loads = 0;
	int e;

	e = reader_open(&r, fd, path, &h, err);
	if (e < 0)
		return e;
	info.elf_class = h.elf_class;
	info.data = h.data;
	info.type = h.type;
	info.machine = h.machine;

	e = locate_by_segments(&r, h.phoff, h.phnum, h.phentsize, &loc, &loads, &n_loads);
	if (e == 1)
		loc.str_is_addr = true;
	else if (e == 0)
		e = locate_by_sections(&r, h.shoff, h.shnum, h.shentsize, &loc);
	if (e == 1)
		e = read_dynamic(&r, &loc, loads, n_loads, flags, &info);
	if (e < 0) {
		elf_info_clear(&info);
		return e;
	}
	*ret = info;
	return 0;
}

int elf_read_section(int fd, const char *path, const char *name, uint32_t sh_type, size_t max,
		     struct elf_section *ret, struct cdi_error *err)
{
	struct reader r;
	struct elf_head h;
	_cleanup_free_ char *tab = NULL, *names = NULL;
	size_t min, want = strlen(name) + 1;
	uint32_t type, link, name_off;
	uint64_t offset, size, align, str_off, str_size;
	int e;

	e = reader_open(&r, fd, path, &h, err);
	if (e < 0)
		return e;
	if (h.shnum == 0 || h.shoff == 0)
		return 0;
	if (h.shstrndx >= h.shnum)
		return cdi_fail(err, -EINVAL, "%s: section name table %u of %u sections", r.path,
				h.shstrndx, h.shnum);
	min = r.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	e = read_table(&r, h.shoff, h.shnum, h.shentsize, min, "section headers", &tab);
	if (e < 0)
		return e;
	shdr_get(&r, tab + (size_t)h.shstrndx * h.shentsize, &type, &str_off, &str_size, &link,
		 NULL, NULL);
	if (str_size > ELF_MAX_SECTION_NAMES)
		return cdi_fail(err, -EINVAL, "%s: section names of %llu bytes", r.path,
				(unsigned long long)str_size);
	names = malloc(str_size + 1);
	if (!names)
		return cdi_fail(err, -ENOMEM, "%s: out of memory", r.path);
	e = read_at(&r, str_off, (size_t)str_size, names, "section names");
	if (e < 0)
		return e;
	names[str_size] = '\0';
	for (uint16_t i = 0; i < h.shnum; i++) {
		const char *p = tab + (size_t)i * h.shentsize;
		_cleanup_free_ char *data = NULL;

		shdr_get(&r, p, &type, &offset, &size, &link, &name_off, &align);
		if (name_off >= str_size || str_size - name_off < want ||
		    memcmp(names + name_off, name, want) != 0)
			continue;
		if (sh_type && type != sh_type)
			continue;
		if (size > max)
			return cdi_fail(err, -EFBIG, "%s: section %s of %llu bytes, more than %zu",
					r.path, name, (unsigned long long)size, max);
		data = malloc(size ? size : 1);
		if (!data)
			return cdi_fail(err, -ENOMEM, "%s: out of memory", r.path);
		e = read_at(&r, offset, (size_t)size, data, name);
		if (e < 0)
			return e;
		*ret = (struct elf_section){ .data = TAKE_PTR(data),
					     .len = (size_t)size,
					     .align = align,
					     .msb = h.data == ELFDATA2MSB };
		return 1;
	}
	return 0;
}

int elf_read_file(const char *path, unsigned flags, struct elf_info *ret, struct cdi_error *err)
{
	_cleanup_close_ int fd = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = negative_errno();

		return cdi_fail(err, e, "%s: cannot open: %s", path, strerror(-e));
	}
	return elf_read_fd(fd, path, flags, ret, err);
}
