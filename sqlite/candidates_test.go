package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

// The full-text index ranks every tenant's messages together: a tenant whose
// matches rank below many of another tenant's must still get its own top
// matches.
func TestMessageCandidatesOutrankedByOtherTenant(t *testing.T) {
	st := open(t, filepath.Join(t.TempDir(), "tenure.db"), time.Now)
	ctx := t.Context()
	acme := tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "employee"}
	globex := tenure.Principal{UserID: "gus", TenantID: "globex", Authority: "employee"}
	at := time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)
	var strong, weak []tenure.Message
	for i := range 60 {
		strong = append(strong, tenure.Message{ThreadID: "t", ID: fmt.Sprint("a", i), Role: "user",
			Content: "zebra zebra zebra", CreatedAt: at.Add(time.Duration(i) * time.Second)})
	}
	for i := range 8 {
		weak = append(weak, tenure.Message{ThreadID: "t", ID: fmt.Sprint("g", i), Role: "user",
			Content:   fmt.Sprintf("a long message %d that mentions a zebra once among many other words of no interest", i),
			CreatedAt: at.Add(time.Duration(i) * time.Second)})
	}
	if _, err := st.AppendMessages(ctx, acme, strong); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessages(ctx, globex, weak); err != nil {
		t.Fatal(err)
	}
	got, err := st.MessageCandidates(ctx, tenure.MessageQuery{Principal: globex, Text: "zebra", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("got %d matches, want 5 of globex's own", len(got))
	}
	for _, m := range got {
		if m.TenantID != "globex" || m.Score <= 0 {
			t.Errorf("match %s of tenant %s, score %g", m.ID, m.TenantID, m.Score)
		}
	}
}

// The full-text index is partitioned by tenant and thread (rowid ranges);
// messages that do not fit spill to rows searched with a filter. With
// partitions so narrow that tenants, threads and positions spill, every
// search returns what it returns with the default partitions: the same
// messages, the same scores.
func TestMessageCandidatesSpilledPartitions(t *testing.T) {
	words := []string{"zebra", "lion", "okapi", "heron", "otter"}
	build := func(t *testing.T) *sqlite.Store {
		st := open(t, filepath.Join(t.TempDir(), "tenure.db"), time.Now)
		at := time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)
		// Appends interleave tenants and threads, as a busy store's do.
		for round := range 3 {
			for tn := range 5 {
				p := tenure.Principal{UserID: "u", TenantID: fmt.Sprint("tenant", tn), Authority: "employee"}
				for th := range 4 {
					var msgs []tenure.Message
					for i := range 4 {
						n := round*4 + i
						msgs = append(msgs, tenure.Message{ThreadID: fmt.Sprint("thread", th), ID: fmt.Sprint("m", n), Role: "user",
							Content:   fmt.Sprintf("%s and %s, message %d of %d/%d", words[(n+tn)%5], words[(n*th+1)%5], n, tn, th),
							CreatedAt: at.Add(time.Duration(n) * time.Minute)})
					}
					if _, err := st.AppendMessages(t.Context(), p, msgs); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		return st
	}
	search := func(t *testing.T, st *sqlite.Store) map[string][]string {
		got := map[string][]string{}
		for tn := range 5 {
			p := tenure.Principal{UserID: "u", TenantID: fmt.Sprint("tenant", tn), Authority: "employee"}
			for th := range 5 { // thread4 holds nothing
				for _, threads := range [][]string{nil, {fmt.Sprint("thread", th)}, {"thread0", fmt.Sprint("thread", th)}} {
					for _, text := range []string{"zebra", "okapi heron", "lion otter zebra"} {
						// Every match (a limit would cut through ties, which
						// either order may break).
						found, err := st.MessageCandidates(t.Context(), tenure.MessageQuery{Principal: p, Text: text, Limit: 1000, Threads: threads})
						if err != nil {
							t.Fatal(err)
						}
						key := fmt.Sprint(p.TenantID, threads, text)
						for _, m := range found {
							if m.TenantID != p.TenantID || (threads != nil && !slices.Contains(threads, m.ThreadID)) {
								t.Errorf("%s: message %s/%s/%s out of scope", key, m.TenantID, m.ThreadID, m.ID)
							}
							got[key] = append(got[key], fmt.Sprintf("%s/%s %.6f", m.ThreadID, m.ID, m.Score))
						}
					}
				}
			}
		}
		return got
	}
	want := search(t, build(t))
	// 7 positions per thread, 3 threads per tenant, 3 tenants.
	sqlite.SetIndexBits(t, 3, 2, 2)
	got := search(t, build(t))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spilled partitions (-want +got):\n%s", diff)
	}
	if len(want) == 0 {
		t.Fatal("no matches at all")
	}
}
