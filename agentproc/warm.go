package agentproc

import (
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/mm-agent/mm/agentproc/agentpb"
)

var warmOnce sync.Once

// warm encodes and decodes once each message an ask sends, while the
// process would otherwise wait (the asking side for its child's start, the
// child for its parent's connection): a protobuf message type builds its
// coders on first use, by reflection, a quarter of a millisecond on each
// side of a cold relay measured with perf, which would otherwise be spent
// in the first ask.
func warm() {
	warmOnce.Do(func() {
		for _, m := range []proto.Message{
			&agentpb.Up{Msg: &agentpb.Up_Question{Question: &agentpb.Question{Prompt: "."}}},
			&agentpb.Up{Msg: &agentpb.Up_Consent{Consent: &agentpb.ConsentAnswer{Id: 1}}},
			&agentpb.Down{Msg: &agentpb.Down_Event{Event: &agentpb.Event{Text: ".", Path: []string{"."}, Input: []byte("{}")}}},
			&agentpb.Down{Msg: &agentpb.Down_Consent{Consent: &agentpb.ConsentQuestion{Id: 1, Path: []string{"."}}}},
			&agentpb.Down{Msg: &agentpb.Down_Outcome{Outcome: &agentpb.Outcome{Answer: "."}}},
		} {
			b, err := proto.Marshal(m)
			if err == nil {
				proto.Unmarshal(b, m.ProtoReflect().New().Interface())
			}
		}
	})
}
