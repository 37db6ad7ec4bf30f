package extract_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

func TestZZScratch(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	var msgs []tenure.Message
	at := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC)
	for i, l := range strings.Split(string(data), "\n") {
		sp, c, ok := strings.Cut(l, "|")
		if !ok {
			continue
		}
		role := "user"
		if sp == "Assistant" {
			role = "assistant"
		}
		msgs = append(msgs, tenure.Message{ID: fmt.Sprintf("m%d", i), ThreadID: "t", Role: role, Speaker: sp, Content: c, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	res := extractBatch(t, extract.NewRules(extract.RulesOptions{}), extract.Batch{ThreadID: "t", Messages: msgs})
	for _, c := range res.Items {
		fmt.Printf("ITEM %s %q owner=%q due=%q subj=%q val=%q alt=%q refs=%v\n", c.Item.Type, c.Item.Text, c.Item.Owner, c.Item.Due, c.Item.Subject, c.Item.Value, c.Item.Alternatives, c.Item.Refs)
	}
	for _, f := range res.Facts {
		fmt.Printf("FACT %s %s | %s | %s | %q %v\n", f.Kind, f.Subject, f.Attribute, f.Value, f.Text, f.Refs)
	}
}
