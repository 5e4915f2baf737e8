/*
 * wire.h: the private raw stream from the memrec tool to memrec-encoder.
 *
 * The tool (inside Valgrind, no libc) appends 64-bit little-endian words to a
 * buffer and write()s the buffer to a pipe; the encoder reads the pipe and
 * turns each record into calls of the trace library. Nothing outside
 * recorder/ sees these bytes, so they carry no version and no checksum.
 *
 * Every record starts with one header word whose low 8 bits are a tag.
 *
 * Block executions, the bulk of the stream, are written by inline IR and so
 * have a header of their own:
 *   WIRE_EXEC  header = WIRE_EXEC | exit << 8 | block << 24
 *              then naccesses words, one address per access of the block
 *              (0 when a guard was false), then nvalues words, one value
 *              per access whose def has MR_ACC_VALUE, in access order: a
 *              fixed length per block, so that the encoder hands both
 *              arrays to the writer in place. Only the first
 *              exits[exit].naccesses addresses, and their values, were
 *              written; the rest of the record is junk.
 *
 * Every other record has a generic header
 *   header = tag | payload_words << 8 | aux << 32
 * followed by payload_words words. The comment on each tag below says what
 * aux and the payload hold. Strings travel once as WIRE_STRING and are then
 * named by their id (0 means "no string").
 */
#ifndef MEMREC_WIRE_H
#define MEMREC_WIRE_H

#define WIRE_EXEC        1   /* see above */
#define WIRE_PROCESS     2   /* aux 0; pid, ppid, start_usec, exe string, options string,
                              * argc, argc argument strings (argc <= WIRE_MAX_ARGS) */
#define WIRE_STRING      3   /* aux id; the bytes (at most WIRE_MAX_STRING), NUL-terminated,
                              * zero-padded to words */
#define WIRE_MODULE      4   /* aux id; text_addr, text_size, bias, path string, flags
                              * (WIRE_MODULE_DATA) */
#define WIRE_SYMBOL      5   /* aux 0; addr, function string, file string | line << 32 */
#define WIRE_BLOCK_DEF   6   /* aux id; addr, ninstrs, naccesses, nexits, then
                              * ninstrs words addr << 8 | len,
                              * naccesses words instr | kind << 16 | flags << 24 | size << 32,
                              * nexits words ninstrs | naccesses << 24 | jump << 48 */
#define WIRE_STACK       7   /* aux id; the instruction pointers, innermost first */
#define WIRE_HEAP        8   /* aux op (mr_heap_op); addr, size, count, old_addr, stack id.
                              * MR_MMAP and MR_MUNMAP (mr_mmap.c): size is the
                              * mapping's, in whole pages; count and old_addr 0 */
#define WIRE_THREAD      9   /* aux op (mr_thread_op); tid, parent */
#define WIRE_MARK       10   /* aux 0; string id of the marker's name */
#define WIRE_COLLECT    11   /* aux 1 (on) or 0 (off) */
#define WIRE_EXEC_CALL  12   /* aux 0; the process is calling execve: if the stream
                              * ends right after this, the trace ends with MR_END_EXEC */
#define WIRE_EXEC_FAIL  13   /* aux 0; that execve failed, the process goes on */
#define WIRE_END        14   /* aux reason (mr_end_reason); status, signal */
#define WIRE_THREAD_OS  15   /* aux 0; tid, the thread's OS thread id (gettid) */

/* WIRE_MODULE flag: the encoder reads the module's static data objects.
 * The tool sets it for every module (Valgrind's core preload included);
 * a module without it only names code. */
#define WIRE_MODULE_DATA 1

/* Field widths of WIRE_EXEC headers and block definitions. */
#define WIRE_EXEC_EXIT_BITS 16
#define WIRE_MAX_EXITS      (1u << WIRE_EXEC_EXIT_BITS)

/* The client sets the length of strings (arguments, paths, symbol and
 * marker names) and the number of arguments, but a record must fit one slot
 * of the ring, which is 16384 words under a small file size limit, and the
 * trace format takes no string over 1 MiB. So the tool cuts a longer string
 * to WIRE_MAX_STRING bytes ending in "...", and sends at most WIRE_MAX_ARGS
 * arguments, the last one then saying how many more there were: a string
 * record has at most 8193 words, a process record 8199. */
#define WIRE_MAX_STRING  65535u
#define WIRE_MAX_ARGS    8192u

/* How many bytes of a string longer than WIRE_MAX_STRING are kept before
 * its "...": as many as fit, backed up to the start of a UTF-8 character
 * so the text stays UTF-8 if it was (the tool's strings and the encoder's
 * ELF symbol names are cut alike). */
static inline unsigned long wire_cut_length(const char *s)
{
    unsigned long n = WIRE_MAX_STRING - 3;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)   /* s[n] continues a character */
        n--;
    return n;
}

/* Builds a generic header. */
#define WIRE_HEADER(tag, nwords, aux) \
    ((unsigned long long)(tag) | ((unsigned long long)(nwords) << 8) | \
     ((unsigned long long)(aux) << 32))

/* The status line the encoder writes on its stdout once the output file is
 * open: "ok\n", or the error message ending in '\n'. The encoder closes its
 * stdout only when it exits, so the tool can wait for EOF there to know the
 * trace is complete. */
#define WIRE_STATUS_OK "ok\n"

#endif /* MEMREC_WIRE_H */
