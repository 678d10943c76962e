/*
 * input.c - reading command lines while the pvmd's messages (job output,
 * new hosts) are shown as they arrive.  On a terminal GNU readline edits
 * the line and keeps a history (when built with it); otherwise lines are
 * read as they come, each echoed after the prompt so a log of the session
 * reads like the terminal would.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#ifdef HAVE_READLINE
#include <readline/readline.h>
#include <readline/history.h>
#endif
#include "cons.h"

#define MAX_INPUT_LINE 4096

static char ibuf[MAX_INPUT_LINE * 2];
static size_t ilen;
static int at_eof;
static char *line;            /* the last line returned (freed on the next call) */

#ifdef HAVE_READLINE
static int rl_on;
static char *line_got;
static int line_done;

static void rl_line(char *l)
{
    line_got = l;
    line_done = 1;
    rl_callback_handler_remove();
}
#endif

int input_init(void)
{
    cons.tty = isatty(0);
#ifdef HAVE_READLINE
    rl_on = cons.tty;
#endif
    return 0;
}

void input_done(void)
{
#ifdef HAVE_READLINE
    if (rl_on && !line_done)
        rl_callback_handler_remove();
#endif
    free(line);
    line = NULL;
}

/* Output was printed while the prompt showed: nothing to do for plain
 * lines (as stock, the text follows the prompt); readline redraws. */
void input_note_async(void) {}

/* stdin first, then the pvmd's descriptors; *np is pvm_getfds's answer
 * (< 0: no pvmd any more).  Returns how many were filled. */
static int poll_set(struct pollfd *fds, int max, int *np)
{
    int n = 0, *pfds;
    fds[n++] = (struct pollfd){ .fd = 0, .events = POLLIN };
    *np = pvm_getfds(&pfds);
    for (int i = 0; i < *np && n < max; i++)
        fds[n++] = (struct pollfd){ .fd = pfds[i], .events = POLLIN };
    return n;
}

/* Wait for stdin or the pvmd; show what the pvmd sent.  1: stdin ready. */
static int wait_input(void)
{
    for (;;) {
        jobs_pump();
        struct pollfd fds[8];
        int np, n = poll_set(fds, 8, &np);
        int r = poll(fds, (nfds_t)n, -1);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0 && fds[0].revents)
            return 1;
        if (np < 0)
            return 1;   /* no pvmd any more: let the reader see stdin */
    }
}

#ifdef HAVE_READLINE
/* The line being edited stays on screen: output clears it, prints, and
 * has readline draw it again below. */
static char *rl_read(const char *prompt)
{
    line_done = 0;
    line_got = NULL;
    jobs_pump();
    rl_callback_handler_install(prompt, rl_line);
    while (!line_done) {
        struct pollfd fds[8];
        int np, n = poll_set(fds, 8, &np);
        int r = poll(fds, (nfds_t)n, -1);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && n > 1 && fds[1].revents) {
            rl_clear_visible_line();
            jobs_pump();
            rl_forced_update_display();
        }
        if (r > 0 && fds[0].revents)
            rl_callback_read_char();
    }
    if (!line_done)
        rl_callback_handler_remove();
    if (line_got && *line_got)
        add_history(line_got);
    return line_got;
}
#endif

static char *take_line(void)
{
    char *nl = memchr(ibuf, '\n', ilen);
    size_t n = nl ? (size_t)(nl - ibuf) : ilen;
    if (!nl && !at_eof && ilen < sizeof ibuf)
        return NULL;
    char *l = malloc(n + 1);
    if (!l)
        return NULL;
    memcpy(l, ibuf, n);
    l[n] = '\0';
    size_t used = nl ? n + 1 : n;
    memmove(ibuf, ibuf + used, ilen - used);
    ilen -= used;
    return l;
}

char *input_line(const char *prompt)
{
    free(line);
    line = NULL;
#ifdef HAVE_READLINE
    if (rl_on)
        return line = rl_read(prompt);
#endif
    fputs(prompt, stdout);
    fflush(stdout);
    for (;;) {
        jobs_pump();
        if (ilen && (line = take_line()))
            break;
        if (at_eof)
            return NULL;
        if (wait_input() < 0)
            return NULL;
        ssize_t r = read(0, ibuf + ilen, sizeof ibuf - ilen);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            at_eof = 1;
        else
            ilen += (size_t)r;
    }
    if (!cons.tty) {
        printf("%s\n", line);
        fflush(stdout);
    }
    return line;
}
