package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/sqlite"
)

// An agent remembers a preference, corrects it, and recalls it with why it
// was selected.
func Example() {
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		panic(err)
	}
	defer st.Close()

	srv := mcp.NewServer(st, mcp.Options{Principal: tenure.Principal{UserID: "ada", Authority: "employee"}})
	serverT, clientT := sdk.NewInMemoryTransports()
	go srv.Run(ctx, serverT)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	call := func(tool string, args map[string]any, out any) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			panic(fmt.Sprint(tool, err, res.Content))
		}
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, out)
	}
	var wrote mcp.RememberOutput
	call(mcp.ToolRemember, map[string]any{"kind": "object", "key": "user.editor", "content": "Ada uses Vim"}, &wrote)
	fmt.Println(wrote.Write.Outcome)

	var replaced tenure.WriteResult
	call(mcp.ToolSupersede, map[string]any{"old": "user.editor", "content": "Ada uses Helix"}, &replaced)
	fmt.Println(replaced.Outcome, replaced.Changes[0].To)

	var found mcp.RecallOutput
	call(mcp.ToolRecall, map[string]any{"query": "which editor does Ada use?"}, &found)
	for _, h := range found.Hits {
		fmt.Printf("%d. %s = %s (%s)\n", h.Rank, h.Key, h.Content, h.CompiledAs)
	}
	// Output:
	// created
	// created superseded
	// 1. user.editor = Ada uses Helix (context)
}
