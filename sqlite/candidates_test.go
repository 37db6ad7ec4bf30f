package sqlite_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
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
