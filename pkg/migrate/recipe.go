package migrate

import (
	"bytes"
	"encoding/json"
	"strings"
)

// recipe collects what has to live in the v3 recipe.
type recipe struct {
	needed   bool
	base     []byte // the v2 Dockerfile, when there is one
	baseName string
	from     string
	mixin    bool
	env      []envVar
	copyHome bool
	entry    []string
	cmd      []string
	hasEntry bool
	hasCmd   bool
	comments []string // kitsmith:migrate lines
}

type envVar struct {
	name, value string
	comments    []string
}

func (r *recipe) empty() bool {
	return len(r.env) == 0 && !r.copyHome && !r.hasEntry && !r.hasCmd
}

// text renders the recipe, or nil when the kit needs none.
func (r *recipe) text() []byte {
	if !r.needed && r.empty() {
		return nil
	}
	var b bytes.Buffer
	if r.base != nil {
		b.Write(r.base)
		if len(r.base) > 0 && !bytes.HasSuffix(r.base, []byte("\n")) {
			b.WriteByte('\n')
		}
		if r.empty() && len(r.comments) == 0 {
			return b.Bytes()
		}
		b.WriteString("\n# Added by kitsmith migrate from " + SpecFile + ".\n")
	} else {
		// No "# syntax=" line: the builder's own Dockerfile frontend knows
		// every instruction written here, and a syntax line would make each
		// build pull a frontend image.
		b.WriteString("# Written by kitsmith migrate from " + SpecFile + ".\n")
	}
	for _, c := range r.comments {
		b.WriteString("# " + c + "\n")
	}
	overlayHome := r.copyHome && r.base == nil && r.from == "" && r.mixin
	if overlayHome {
		b.WriteString("# files/home of the v2 kit, which v2 copied to /home/agent at create. It is staged\n" +
			"# with the agent's ownership and copied under a root-owned /home: a chown'd COPY\n" +
			"# straight to /home/agent/ would create /home owned by the agent.\n" +
			"FROM scratch AS home\nCOPY --chown=1000:1000 files/home/ /agent/\n\n")
	}
	if r.base == nil {
		switch {
		case r.from != "":
			b.WriteString("FROM " + r.from + "\n")
		case r.mixin:
			b.WriteString("# A mixin's recipe is an overlay: it lands on any base.\nFROM scratch\n")
		default:
			b.WriteString("# " + CommentMarker + " no-image: write the base image here.\nFROM scratch\n")
		}
	}
	for _, e := range r.env {
		for _, c := range e.comments {
			b.WriteString(c + "\n")
		}
		b.WriteString("ENV " + e.name + "=" + envQuote(e.value) + "\n")
	}
	switch {
	case overlayHome:
		b.WriteString("COPY --from=home / /home/\n")
	case r.copyHome:
		b.WriteString("# files/home of the v2 kit, which v2 copied to /home/agent at create.\n")
		b.WriteString("COPY --chown=1000:1000 files/home/ /home/agent/\n")
	}
	if r.hasEntry {
		b.WriteString("ENTRYPOINT " + execForm(r.entry) + "\n")
	}
	if r.hasCmd {
		b.WriteString("CMD " + execForm(r.cmd) + "\n")
	}
	return b.Bytes()
}

// envQuote quotes an ENV value for a Dockerfile: double quotes, with
// backslash, quote and dollar escaped so nothing is substituted.
func envQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

// execForm renders an argv as a Dockerfile JSON array.
func execForm(argv []string) string {
	if argv == nil {
		argv = []string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(argv)
	return strings.TrimSuffix(b.String(), "\n")
}
