package eval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// BareCommand returns a BenchOptions.Bare that runs the bare queries in a
// process of its own: cmd, given the database's path (or URL), must run
// ServeBare. The bench writes each query to its standard input and reads
// how long the query took from its output, so that the bare side shares
// neither a connection nor SQLite's page cache (which is per process)
// with the store under test.
func BareCommand(cmd func(where string) *exec.Cmd) func(ctx context.Context, where string) (BareQuerier, error) {
	return func(ctx context.Context, where string) (BareQuerier, error) {
		c := cmd(where)
		in, err := c.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := c.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := c.Start(); err != nil {
			return nil, err
		}
		return &bareProcess{cmd: c, in: in, out: bufio.NewReader(out)}, nil
	}
}

type bareProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (b *bareProcess) Query(_ context.Context, thread, q string) (time.Duration, error) {
	if _, err := fmt.Fprintln(b.in, strconv.Quote(thread), strconv.Quote(q)); err != nil {
		return 0, err
	}
	line, err := b.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("bare process: %w", err)
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		return 0, fmt.Errorf("bare process: %s", msg)
	}
	ns, err := strconv.ParseInt(line, 10, 64)
	return time.Duration(ns), err
}

func (b *bareProcess) Close() error {
	b.in.Close()
	return b.cmd.Wait()
}

// ServeBare answers BareCommand's queries on the bare database at where,
// opened with open (BareInProcess or BarePostgres): one quoted thread and
// quoted query a line on in, the nanoseconds the query took (or
// "error …") a line on out, until in ends.
func ServeBare(ctx context.Context, open func(ctx context.Context, where string) (BareQuerier, error), where string,
	in io.Reader, out io.Writer) error {
	b, err := open(ctx, where)
	if err != nil {
		return err
	}
	defer b.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		thread, q, err := unquotePair(sc.Text())
		if err != nil {
			return err
		}
		d, err := b.Query(ctx, thread, q)
		if err != nil {
			fmt.Fprintf(w, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Fprintf(w, "%d\n", d.Nanoseconds())
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// unquotePair reads two quoted strings separated by a space.
func unquotePair(line string) (string, string, error) {
	first, err := strconv.QuotedPrefix(line)
	if err != nil {
		return "", "", fmt.Errorf("bare process: %w", err)
	}
	a, err := strconv.Unquote(first)
	if err != nil {
		return "", "", err
	}
	b, err := strconv.Unquote(strings.TrimPrefix(line[len(first):], " "))
	return a, b, err
}
