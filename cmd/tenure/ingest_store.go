package main

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/transcript"
)

// importer writes the messages of a file to the store in one transaction.
// Before, it reads the threads' stored messages when the file's times are
// partly derived (a stored message that differs only in a derived time is
// already present) or with --skip-invalid (a conflict with a stored
// message is skipped and reported instead of failing the import).
type importer struct {
	st          *dbStore
	p           tenure.Principal
	scope       tenure.Scope
	skipInvalid bool
	// problems are the messages the store refused (--skip-invalid).
	problems []transcript.Problem
}

// maxRefused caps the messages --skip-invalid drops one import attempt
// at a time, for refusals the check against the stored threads cannot
// foresee (messages of other users, say).
const maxRefused = 100

// run imports res's messages, reporting progress.
func (w *importer) run(ctx context.Context, res *transcript.Result, progress func(int)) (tenure.AppendResult, error) {
	msgs, srcs := res.Messages, res.Sources
	present := 0
	if w.skipInvalid || slices.ContainsFunc(srcs, func(s transcript.Source) bool { return s.Derived }) {
		var err error
		if msgs, srcs, present, err = w.againstStored(ctx, msgs, srcs); err != nil {
			return tenure.AppendResult{}, err
		}
	}
	for refused := 0; ; refused++ {
		n, err := w.st.ImportMessages(ctx, w.p, msgs, progress)
		if err == nil {
			n.Skipped += present
			return n, nil
		}
		i, ok := batchIndexOf(err)
		if !ok || i >= len(msgs) {
			return n, err
		}
		if !w.skipInvalid || refused == maxRefused {
			return n, located(err, srcs[i])
		}
		w.problems = append(w.problems, transcript.NewProblem(srcs[i], &msgs[i], unindexed(err)))
		msgs, srcs = slices.Delete(slices.Clone(msgs), i, i+1), slices.Delete(slices.Clone(srcs), i, i+1)
	}
}

// againstStored compares msgs with the stored messages of their threads:
// one that differs from its stored self only in a derived created_at is
// dropped and counted as present; with --skip-invalid one that differs
// otherwise is dropped and reported.
func (w *importer) againstStored(ctx context.Context, msgs []tenure.Message, srcs []transcript.Source) (
	[]tenure.Message, []transcript.Source, int, error) {
	stored := map[[3]string]tenure.Message{} // thread, user, id
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.ThreadID] {
			continue
		}
		seen[m.ThreadID] = true
		const page = 100_000
		for after := ""; ; {
			got, err := w.st.Messages(ctx, w.p, tenure.MessageFilter{Scope: w.scope, ThreadID: m.ThreadID, AfterID: after, Limit: page})
			if err != nil {
				return nil, nil, 0, err
			}
			for _, s := range got {
				stored[[3]string{s.ThreadID, s.UserID, s.ID}] = s
			}
			if len(got) < page {
				break
			}
			after = got[len(got)-1].ID
		}
	}
	var keepM []tenure.Message
	var keepS []transcript.Source
	present := 0
	for i, m := range msgs {
		s, ok := stored[[3]string{m.ThreadID, m.UserID, m.ID}]
		switch d := transcript.Difference(&s, &m); {
		case !ok || d == "":
		case d == "created_at" && srcs[i].Derived:
			present++
			continue
		case w.skipInvalid:
			w.problems = append(w.problems, transcript.NewProblem(srcs[i], &msgs[i], tenure.Errorf(tenure.CodeConflict, "id",
				"message %q already exists in thread %q with %s", m.ID, m.ThreadID, transcript.Other(d))))
			continue
		}
		keepM, keepS = append(keepM, m), append(keepS, srcs[i])
	}
	return keepM, keepS, present, nil
}

var batchIndex = regexp.MustCompile(`^\[(\d+)\]\.?`)

// batchIndexOf returns i of a store error about message [i] of the batch.
func batchIndexOf(err error) (int, bool) {
	m := batchIndex.FindStringSubmatch(tenure.AsError(err).Field)
	if m == nil {
		return 0, false
	}
	i, err := strconv.Atoi(m[1])
	return i, err == nil
}

// unindexed is a store error about message [i] with the field relative to
// the message ("[3].id" becomes "id").
func unindexed(err error) *tenure.Error {
	te := *tenure.AsError(err)
	te.Field = strings.TrimPrefix(te.Field, batchIndex.FindString(te.Field))
	return &te
}

// located rewrites a store error about message [i] of the batch to name
// where in the file the message came from.
func located(err error, src transcript.Source) error {
	return transcript.NewProblem(src, nil, unindexed(err)).Err()
}
