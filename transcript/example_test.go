package transcript_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/tenure-dev/tenure/transcript"
)

// Read a chat export whose format Detect tells: each turn becomes a
// message with a derived id and time, the system prompt and the empty
// turn are counted, not imported.
func ExampleRead() {
	export := `{"messages": [
  {"role": "system", "content": "You are a travel assistant."},
  {"role": "user", "content": "I fly to Lisbon on Friday."},
  {"role": "assistant", "content": ""},
  {"role": "assistant", "content": "Have a good trip!"}
]}`
	d := transcript.Detect([]byte(export))
	res, err := transcript.Read(strings.NewReader(export), d.Format,
		transcript.Options{Name: "trip", Start: time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Format)
	for _, m := range res.Messages {
		fmt.Println(m.ThreadID, m.ID, m.Role, m.CreatedAt.Format(time.TimeOnly), m.Content)
	}
	fmt.Println("left out:", res.Omitted)
	// Output:
	// openai
	// trip m1 user 09:00:01 I fly to Lisbon on Friday.
	// trip m3 assistant 09:00:03 Have a good trip!
	// left out: 1 empty turn, 1 system message
}
