package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	at "github.com/kitsmith/kitsmith/pkg/artifact/artifacttest"
)

// TestPublishRace runs two publishes of different kits to one tag at once,
// five times. On a registry that honours conditional writes at most one
// says published (exit 0), the other fails (exit 1) at the tag, and the
// tag holds the digest the winner reported; on one that does not, the
// tag holds the digest of a run that said published (the last writer,
// which read its own digest back).
func TestPublishRace(t *testing.T) {
	regs := map[string]string{"conditional": at.ConditionalRegistry(t), "unconditional": junkRegistries(t)["referrers-api"]}
	for name, reg := range regs {
		t.Run(name, func(t *testing.T) {
			for i := range 5 {
				tag := fmt.Sprintf("%s/kits/race-%d:1.0.0", reg, i)
				var wg sync.WaitGroup
				codes, outs := make([]int, 2), make([]string, 2)
				for j, kit := range []string{"../../kits/outside", "../../kits/inside"} {
					wg.Go(func() {
						stdout, stderr, code := runPublish(t, env{"SOURCE_DATE_EPOCH": "0"}, "--unsigned", "-t", tag, kit)
						codes[j], outs[j] = code, stdout+stderr
					})
				}
				wg.Wait()
				d, err := artifact.Head(context.Background(), tag)
				if err != nil {
					t.Fatalf("run %d: no tag: %v\n%s\n%s", i, err, outs[0], outs[1])
				}
				won, named := 0, 0
				for j := range 2 {
					switch codes[j] {
					case exitOK:
						won++
						if strings.Contains(outs[j], d.Digest.String()) {
							named++
						} else if name == "conditional" {
							t.Errorf("run %d: a publish said published, but the tag holds %s:\n%s", i, d.Digest, outs[j])
						}
					case exitFindings:
						if !strings.Contains(outs[j], "at tag") {
							t.Errorf("run %d: exit 1 not at the tag stage:\n%s", i, outs[j])
						}
					default:
						t.Errorf("run %d: exit %d:\n%s", i, codes[j], outs[j])
					}
				}
				// The last writer read its own digest back: whatever the
				// registry, some run that said published names the tag's digest.
				if named == 0 || name == "conditional" && won > 1 {
					t.Errorf("run %d: %d of 2 publishes said published\n%s\n%s", i, won, outs[0], outs[1])
				}
			}
		})
	}
}
