package sqlite_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/sqlite"
)

// chatter returns n messages of a thread built from a small vocabulary,
// so that words repeat within and across messages, with a few dates.
func chatter(seed uint64, th string, n int) []tenure.Message {
	words := strings.Fields(`garden garden's roses rose walking walked the a river boat Bob Ann painted painting yesterday
		lake sunrise support group talked café naïve hiking falls dog Rex ran 2023 May note`)
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]tenure.Message, n)
	for i := range out {
		text := make([]string, 2+rng.IntN(14))
		for j := range text {
			text[j] = words[rng.IntN(len(words))]
		}
		out[i] = tenure.Message{ThreadID: th, ID: fmt.Sprintf("%s-%d", th, i), Role: "user", Speaker: []string{"Ann", "Bob", "Rex"}[rng.IntN(3)],
			Content: strings.Join(text, " "), CreatedAt: day.Add(time.Duration(i) * time.Minute)}
	}
	return out
}

// scores returns the full-text scores of a search of thread th by p, by
// message id.
func scores(t *testing.T, s *sqlite.Store, p tenure.Principal, th, text string) map[string]float64 {
	t.Helper()
	got, err := s.MessageCandidates(t.Context(), tenure.MessageQuery{Principal: p, Text: text, Limit: 10_000, Threads: []string{th}})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	out := map[string]float64{}
	for _, m := range got {
		if m.Score > 0 {
			out[m.ID] = m.Score
		}
	}
	return out
}

func sameScores(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d matches, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: score of %s = %v, want %v", what, id, g, w)
		}
	}
}

// A search ranks by FTS5's bm25() (weights 0.5, 1, 1) with statistics
// counted over what the reader may see in what it searches: in a store
// that holds one thread, all of it visible, the scores are bm25()'s; other
// tenants' messages and messages the reader cannot read change nothing.
func TestRankingIsLocalBM25(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	ctx := t.Context()
	if _, err := s.ImportMessages(ctx, ann, chatter(1, "th", 300), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexMessages(ctx); err != nil {
		t.Fatal(err)
	}
	queries := []string{"garden roses walking", "painting painted walked walking rose", "Bob painted the sunrise yesterday", "café naive", "Rex 2023 falls hiking dog", "zzznothing"}
	want := map[string]map[string]float64{}
	for _, q := range queries {
		// bm25() over the whole table, which holds this thread only.
		rows, err := s.DB().Query(`SELECT m.id, -bm25(messages_fts, 0.5, 1.0, 1.0) FROM messages_fts f
			JOIN messages m ON m.seq = (SELECT seq FROM messages WHERE pos = f.rowid & 4194303) WHERE messages_fts MATCH ?`, ftsMatch(q))
		if err != nil {
			t.Fatal(err)
		}
		want[q] = map[string]float64{}
		for rows.Next() {
			var id string
			var score float64
			if err := rows.Scan(&id, &score); err != nil {
				t.Fatal(err)
			}
			want[q][id] = score
		}
		rows.Close()
		if q != "zzznothing" && len(want[q]) == 0 {
			t.Fatalf("%q matches nothing", q)
		}
		sameScores(t, q, scores(t, s, ann, "th", q), want[q])
		// A limit keeps the best, ties in append order, whatever rows
		// it leaves unscored.
		for _, limit := range []int{1, 3, 10, 40} {
			got, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: ann, Text: q, Limit: limit, Threads: []string{"th"}})
			if err != nil {
				t.Fatal(err)
			}
			top := bestOf(want[q], limit)
			hits := map[string]float64{}
			for _, m := range got {
				if m.Score > 0 {
					hits[m.ID] = m.Score
				}
			}
			sameScores(t, fmt.Sprintf("%s, limit %d", q, limit), hits, top)
		}
	}
	// Another tenant, another thread of the tenant, and another user's
	// messages in the thread (which the reader cannot see: the
	// statistics are then counted row by row).
	other := tenure.Principal{UserID: "zed", TenantID: "globex", Authority: "employee"}
	if _, err := s.AppendMessages(ctx, other, chatter(2, "th", 500)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessages(ctx, ann, chatter(3, "elsewhere", 200)); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		sameScores(t, q+" (other tenant and thread)", scores(t, s, ann, "th", q), want[q])
	}
	bob := tenure.Principal{UserID: "bob", TenantID: "acme", Authority: "employee"}
	private := chatter(4, "th", 100)
	for i := range private {
		private[i].UserID = "bob"
		private[i].ID = "private-" + private[i].ID
	}
	if _, err := s.AppendMessages(ctx, bob, private); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		sameScores(t, q+" (another user's messages)", scores(t, s, ann, "th", q), want[q])
	}
	if got := scores(t, s, bob, "th", "garden roses walking"); len(got) <= len(want["garden roses walking"]) {
		t.Errorf("bob's search found %d matches, want more than ann's %d", len(got), len(want["garden roses walking"]))
	}
}

// ftsMatch is the FTS5 query the engine asks for text: its content words,
// quoted, or'ed.
func ftsMatch(text string) string {
	var q []string
	for _, w := range retrieve.ContentWords(text) {
		q = append(q, `"`+w+`"`)
	}
	return strings.Join(q, " OR ")
}

// bestOf returns the limit best of scores, ties in message order (ids
// th-0, th-1, ...).
func bestOf(scores map[string]float64, limit int) map[string]float64 {
	ids := slices.Collect(maps.Keys(scores))
	num := func(id string) int {
		n, _ := strconv.Atoi(id[strings.LastIndex(id, "-")+1:])
		return n
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(num(a), num(b)))
	})
	out := map[string]float64{}
	for _, id := range ids[:min(limit, len(ids))] {
		out[id] = scores[id]
	}
	return out
}
