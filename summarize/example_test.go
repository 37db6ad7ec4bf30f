package summarize_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

func ExampleExtractive_Session() {
	msgs := []tenure.Message{
		{Role: "user", Speaker: "Ana", Content: "The offsite moved to Lisbon, on March 12. Who is booking the flights?"},
		{Role: "user", Speaker: "Ben", Content: "I'll call the hotel on Monday."},
	}
	s, err := summarize.NewExtractive(summarize.Options{}).Session(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.OneLiner)
	fmt.Println(s.OpenLoops)
	fmt.Println(s.Commitments)
	fmt.Println(s.People)
	// Output:
	// Ana: The offsite moved to Lisbon, on March 12.
	// [Ana: Who is booking the flights?]
	// [Ben: I'll call the hotel on Monday.]
	// [Ana Ben]
}

// The engine asks the policy when to summarize and falls back to the
// extractive summarizer when the model fails: here no model is configured.
func ExampleFallback() {
	msgs := []tenure.Message{
		{Role: "user", Speaker: "Ana", Content: "We decided to ship the beta on June 3."},
		{Role: "assistant", Content: "Noted. I'll draft the release notes for the beta by Friday."},
	}
	if summarize.DueRolling(10, summarize.DefaultRollingEvery) {
		c := summarize.Fallback(summarize.NewLLM(nil, summarize.Options{}), summarize.NewExtractive(summarize.Options{}))
		text, res, err := c.RollingResult(context.Background(), "", msgs)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(text)
		fmt.Println(res.Used, tenure.ErrorCode(res.PrimaryErr))
	}
	last := time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)
	fmt.Println(summarize.SessionClosed(last, last.Add(45*time.Minute), 0))
	// Output:
	// Ana: We decided to ship the beta on June 3.
	// Assistant: I'll draft the release notes for the beta by Friday.
	// extractive unavailable
	// true
}
