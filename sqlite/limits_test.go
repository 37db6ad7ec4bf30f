package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

// A store's content limit holds for objects, batches and messages: past
// it the write is too_large naming the field and nothing is written; the
// limit can be raised above the default as well as lowered.
func TestContentLimit(t *testing.T) {
	ctx := context.Background()
	p := tenure.Principal{UserID: "u", TenantID: "t"}
	s := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{MaxContentBytes: 100})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	text := func(n int) string { return strings.Repeat("x", n) }
	msg := func(id string, n int) tenure.Message {
		return tenure.Message{ThreadID: "th", ID: id, Role: "user", Content: text(n), CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	}
	cases := []struct {
		name  string
		write func() error
		field string
	}{
		{"Content", func() error { _, err := s.Put(ctx, p, tenure.Object{Key: "a", Content: text(101)}); return err }, "content"},
		{"Value", func() error {
			_, err := s.Put(ctx, p, tenure.Object{Key: "a", Content: "short", Value: []byte(`"` + text(99) + `"`)})
			return err
		}, "value"},
		{"WhyItMatters", func() error {
			_, err := s.Put(ctx, p, tenure.Object{Key: "a", Content: "short", WhyItMatters: text(101)})
			return err
		}, "why_it_matters"},
		{"Batch", func() error {
			_, err := s.PutBatch(ctx, p, []tenure.Object{{Key: "a", Content: "fine"}, {Key: "b", Content: text(101)}})
			return err
		}, "[1].content"},
		{"Message", func() error {
			_, err := s.AppendMessages(ctx, p, []tenure.Message{msg("1", 10), msg("2", 101)})
			return err
		}, "[1].content"},
	}
	for _, tc := range cases {
		t.Run("Err"+tc.name, func(t *testing.T) {
			err := tc.write()
			if tenure.ErrorCode(err) != tenure.CodeTooLarge || tenure.ErrorField(err) != tc.field {
				t.Fatalf("err = %v (code %s, field %q), want too_large %q", err, tenure.ErrorCode(err), tenure.ErrorField(err), tc.field)
			}
			if objs, err := s.List(ctx, p, tenure.Filter{}); err != nil || len(objs) != 0 {
				t.Errorf("after the refused write: %d objects (%v), want none", len(objs), err)
			}
			if msgs, err := s.Messages(ctx, p, tenure.MessageFilter{ThreadID: "th"}); err != nil || len(msgs) != 0 {
				t.Errorf("after the refused write: %d messages (%v), want none", len(msgs), err)
			}
		})
	}
	t.Run("OKAtLimit", func(t *testing.T) {
		if _, err := s.Put(ctx, p, tenure.Object{Key: "a", Content: text(100), Value: []byte(`"ok"`)}); err != nil {
			t.Error(err)
		}
		if _, err := s.AppendMessages(ctx, p, []tenure.Message{msg("1", 100)}); err != nil {
			t.Error(err)
		}
	})
	t.Run("OKRaised", func(t *testing.T) {
		big := sqlite.New(filepath.Join(t.TempDir(), "big.db"), sqlite.Options{MaxContentBytes: 2 * tenure.MaxContentLen})
		if err := big.Open(ctx); err != nil {
			t.Fatal(err)
		}
		defer big.Close()
		if _, err := big.Put(ctx, p, tenure.Object{Key: "a", Content: text(tenure.MaxContentLen + 1)}); err != nil {
			t.Errorf("content over the default, under the raised limit: %v", err)
		}
	})
}
