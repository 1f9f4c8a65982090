package artifact

import (
	"context"
	"testing"
)

func TestCheckGood(t *testing.T) {
	for name, mk := range map[string]func(testing.TB) *kit{"mixin": goodMixin, "workload": goodWorkload} {
		t.Run(name, func(t *testing.T) {
			rep, err := mk(t).artifact(t).Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				t.Errorf("%s %s [%s]: %s (%s)", f.Severity, f.Check, f.Platform, f.Message, f.Spec)
			}
		})
	}
}
