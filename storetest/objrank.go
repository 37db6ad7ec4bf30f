package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// candidateSource is a store that supplies compile candidates.
type candidateSource interface {
	Candidates(ctx context.Context, q tenure.CandidateQuery) ([]tenure.Object, error)
}

// testObjectRanking checks that the full-text ranking of objects counts
// only what the reader may read: two stores hold the same objects the
// employee may read, one of them also objects it may not (another user's,
// a higher classification, a role it lacks, another tenant's) that hold
// one of the query's words many times. The employee's candidates must come
// in the same order in both, whatever the limit, and ties are broken by
// the order of writing among its objects only.
func testObjectRanking(t *testing.T, f MessageFactory) {
	if _, ok := f(t, NewClock(T0).Now).(candidateSource); !ok {
		t.Skip("the store supplies no compile candidates")
	}
	hidden := []struct {
		p tenure.Principal
		o tenure.Object
	}{
		{cfo, tenure.Object{Key: "secret.user", Content: "alpha alpha", UserID: "cfo"}},
		{admin, tenure.Object{Key: "secret.class", Content: "alpha", SecurityClassification: tenure.HighlyRestricted}},
		{admin, tenure.Object{Key: "secret.role", Content: "alpha alpha alpha", PermissionScope: tenure.PermissionScope{AllowRoles: []string{"admin"}}}},
		{admin, tenure.Object{Key: "secret.deny", Content: "alpha", PermissionScope: tenure.PermissionScope{DenyRoles: []string{"sales"}}}},
		{outsider, tenure.Object{Key: "secret.tenant", Content: "alpha alpha"}},
		{cfo, tenure.Object{Key: "secret.tie", Content: "delta", UserID: "cfo"}},
	}
	visible := []tenure.Object{
		{Key: "note.a", Content: "alpha"},
		{Key: "note.b", Content: "gamma"},
		{Key: "note.c", Content: "alpha gamma"},
		{Key: "note.d", Content: "gamma gamma beta"},
		{Key: "note.e", Content: "filler words"},
		{Key: "note.f", Content: "more filler words"},
		{Key: "note.g", Content: "still more filler"},
		{Key: "note.h", Content: "delta"},
		{Key: "note.i", Content: "delta"},
	}
	var got [2]map[string][]string
	for world := range got {
		s := f(t, NewClock(T0).Now)
		ctx := t.Context()
		if world == 1 {
			// Written first, so that they also take the lowest seqs.
			for _, h := range hidden {
				o := h.o
				o.Value = jsonString("x")
				if _, err := s.Put(ctx, h.p, o); err != nil {
					t.Fatalf("put %s: %v", o.Key, err)
				}
			}
		}
		for _, o := range visible {
			o.Value = jsonString("x")
			o.SecurityClassification = tenure.Public
			if _, err := s.Put(ctx, admin, o); err != nil {
				t.Fatalf("put %s: %v", o.Key, err)
			}
		}
		got[world] = map[string][]string{}
		for _, text := range []string{"alpha gamma", "alpha", "gamma beta", "alpha filler", "delta"} {
			for _, limit := range []int{1, 2, 3, 10} {
				cands, err := s.(candidateSource).Candidates(ctx, tenure.CandidateQuery{Principal: employee, Text: text, Limit: limit})
				if err != nil {
					t.Fatalf("candidates %q: %v", text, err)
				}
				var keys []string
				for _, o := range cands {
					if strings.HasPrefix(o.Key, "secret.") {
						t.Fatalf("candidates %q: %s, which the employee may not read", text, o.Key)
					}
					if strings.HasPrefix(o.Key, "note.") {
						keys = append(keys, o.Key)
					}
				}
				got[world][text+"/"+strconv.Itoa(limit)] = keys
			}
		}
	}
	for q, without := range got[0] {
		if with := got[1][q]; !slices.Equal(with, without) {
			t.Errorf("candidates %s: %v beside unreadable objects, %v without", q, with, without)
		}
	}
	// note.c holds both words; note.a's is the rarer among what the
	// employee may read (beside the hidden objects, the rarer is gamma).
	if want := []string{"note.c", "note.a"}; !slices.Equal(got[1]["alpha gamma/2"], want) {
		t.Errorf("candidates alpha gamma, limit 2: %v, want %v", got[1]["alpha gamma/2"], want)
	}
	// note.h and note.i tie; the first written comes first, whatever
	// hidden objects hold the word or were written before them.
	if want := []string{"note.h"}; !slices.Equal(got[1]["delta/1"], want) {
		t.Errorf("candidates delta, limit 1: %v, want %v", got[1]["delta/1"], want)
	}
}

// AudienceReader is a principal of the tenant WriteAudiences writes that
// reads some of its audiences (its own user's, up to confidential, role
// hr, project p1 when the scope names it) and not others.
var AudienceReader = tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "employee", Clearance: tenure.Confidential,
	Roles: []string{"hr"}}

// WriteAudiences writes n objects of tenant acme in several audiences
// (another user's, confidential, allow and deny roles, project p1), whose
// contents repeat the words of a small vocabulary; later claims of one key
// close earlier versions, and a few objects are hard-deleted. Another
// tenant gets objects too. It is the fixture of the stores' tests of what
// they keep per audience class.
func WriteAudiences(t *testing.T, s tenure.Store, n int) {
	t.Helper()
	ctx := t.Context()
	words := strings.Fields(`garden roses walking walked river boat painted painting sunrise lake dog rex`)
	text := func(i int) string {
		out := make([]string, 1+i%4)
		for j := range out {
			out[j] = words[(i*(j+3)+j)%len(words)]
		}
		return strings.Join(out, " ")
	}
	writer := tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted,
		Roles: []string{"sales"}, Permissions: []string{tenure.PermAnyUser}}
	var ids []string
	for i := range n {
		o := tenure.Object{Key: "note." + strconv.Itoa(i), Value: jsonString("x"), Content: text(i), SecurityClassification: tenure.Public}
		switch i % 5 {
		case 1:
			o.UserID = "bob"
		case 2:
			o.SecurityClassification = tenure.Confidential
		case 3:
			o.PermissionScope = tenure.PermissionScope{AllowRoles: []string{"sales", "hr"}, DenyRoles: []string{"intern"}}
		case 4:
			o.ProjectID = "p1"
		}
		if i%7 == 0 {
			o.Key, o.Value = "note.same", jsonString("v"+strconv.Itoa(i)) // later claims close earlier versions
		}
		r, err := s.Put(ctx, writer, o)
		if err != nil {
			t.Fatalf("put %s: %v", o.Key, err)
		}
		if i%7 != 0 && i%5 != 1 && i%5 != 4 { // retired below, in the writer's scope
			ids = append(ids, r.Object.ObjectID)
		}
	}
	if _, err := s.Retire(ctx, writer, tenure.RetireOptions{ObjectIDs: ids[len(ids)/3 : len(ids)/2], Rule: tenure.RetireHardDelete}); err != nil {
		t.Fatalf("retire: %v", err)
	}
	other := tenure.Principal{UserID: "zed", TenantID: "globex", Authority: "policy"}
	for i := range n / 4 {
		if _, err := s.Put(ctx, other, tenure.Object{Key: "other." + strconv.Itoa(i), Value: jsonString("x"), Content: text(i)}); err != nil {
			t.Fatalf("put other.%d: %v", i, err)
		}
	}
}

// ClassKey is what tests compare audience classes counted apart by (by a
// store as it writes and by a migration): the tenant and the canonical
// form (engine.Audience) of the class's audience.
func ClassKey(t *testing.T, tenant, audience string) string {
	t.Helper()
	var o tenure.Object
	if err := json.Unmarshal([]byte(audience), &o); err != nil {
		t.Fatalf("audience %s: %v", audience, err)
	}
	return tenant + " " + engine.Audience(&o)
}
