package conform

import (
	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// homeTrap explains how a mixin ends up shipping /home owned by the agent.
const homeTrap = "This is BuildKit's parent-directory trap: `COPY --chown=1000:1000 … /home/agent/` creates the missing /home with the same owner as the copy. " +
	"Stage a root-owned /home first — `COPY --chown=0:0 home/ /home/` or `RUN install -d -o 0 -g 0 /home` before the chown'd copy — then copy into /home/agent/."

// overlayFS returns the filesystem when the overlay checks apply (a mixin
// whose layers read), or the findings to report instead.
func (s *checkState) overlayFS() (*kitimage.FS, []Finding) {
	if s.d.Kind != spec.KindMixin {
		return nil, nil
	}
	if f := s.noFS(); f != nil {
		return nil, f
	}
	return s.fs, nil
}

func checkHomeOwnership(s *checkState) []Finding {
	fs, out := s.overlayFS()
	if fs == nil {
		return out
	}
	if n := fs.Lookup("/home", false); n != nil && n.Explicit() && n.UID != 0 {
		msg := "the overlay ships /home owned by uid %d (gid %d); a mixin's directory entries replace the base's, owner included, so every sandbox it lands on would get a /home root does not own. "
		out = append(out, fail(msg+homeTrap, n.UID, n.GID)...)
	}
	if n := fs.Lookup("/home/agent", false); n != nil && n.Explicit() && n.UID != 1000 {
		msg := "the overlay ships /home/agent owned by uid %d (gid %d); a mixin's directory entries replace the base's, owner included, so the agent (uid 1000) would lose its own home. " +
			"Copy into it as the agent: `COPY --chown=1000:1000 files/ /home/agent/` (after staging a root-owned /home); a COPY without --chown writes root-owned entries."
		out = append(out, fail(msg, n.UID, n.GID)...)
	}
	return out
}

func checkLinksResolve(s *checkState) []Finding {
	fs, out := s.overlayFS()
	if fs == nil {
		return out
	}
	dangling := fs.DanglingLinks()
	for i, l := range dangling {
		if i == kitimage.MaxDanglingReport {
			out = append(out, warn("and %d more symbolic links that do not resolve within the overlay's own layers", len(dangling)-i)...)
			break
		}
		out = append(out, warn("%s links to %s, which does not resolve within the overlay's own layers: the base a mixin lands on is unknown, so the link may dangle in a sandbox; ship the target too, or drop the link", l.Path, l.Target)...)
	}
	return out
}
