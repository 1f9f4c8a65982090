package kitimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// maxTrailer bounds the uncompressed bytes read after a layer's
// end-of-archive marker: tar padding is at most a record (10 KiB), so a
// layer with more carries data no unpacker sees, and its diff_id is not
// worth decompressing a bomb for.
const maxTrailer = 1 << 20

// layerStream reads one layer once: the compressed bytes are hashed as
// they arrive, decompressed (by go-containerregistry's gzip and zstd
// detection), and the uncompressed bytes hashed for the diff_id.
type layerStream struct {
	desc       v1.Descriptor
	compressed io.ReadCloser
	cHash      hash.Hash
	cN         int64
	cTee       io.Reader
	plain      io.ReadCloser
	uHash      hash.Hash
	uTee       io.Reader
}

// openLayer starts reading l, whose manifest descriptor is d (zero when
// the manifest lists none: then nothing is compared).
func openLayer(l v1.Layer, d v1.Descriptor) (*layerStream, error) {
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	s := &layerStream{desc: d, compressed: rc, cHash: sha256.New(), uHash: sha256.New()}
	s.cTee = io.TeeReader(rc, countingWriter{s.cHash, &s.cN})
	ul, err := partial.CompressedToLayer(streamLayer{d: d, r: s.cTee})
	if err != nil {
		rc.Close()
		return nil, err
	}
	if s.plain, err = ul.Uncompressed(); err != nil {
		rc.Close()
		return nil, err
	}
	s.uTee = io.TeeReader(s.plain, s.uHash)
	return s, nil
}

// Read reads the uncompressed stream.
func (s *layerStream) Read(p []byte) (int, error) { return s.uTee.Read(p) }

// Close closes both streams.
func (s *layerStream) Close() error {
	err := s.plain.Close()
	if cerr := s.compressed.Close(); err == nil {
		err = cerr
	}
	return err
}

// finish reads what follows the tar (at most maxTrailer uncompressed
// bytes), then the rest of the compressed blob to its end, and compares
// the blob's digest and size with the descriptor and the uncompressed
// digest with diffID (when given).
func (s *layerStream) finish(ctx context.Context, diffID v1.Hash) error {
	n, err := io.CopyN(io.Discard, ctxReader{ctx, s.uTee}, maxTrailer+1)
	trailing := n > maxTrailer
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if _, err := io.Copy(io.Discard, ctxReader{ctx, s.cTee}); err != nil {
		return err
	}
	if s.desc.Digest.Algorithm == "sha256" {
		if got := hex.EncodeToString(s.cHash.Sum(nil)); got != s.desc.Digest.Hex || s.cN != s.desc.Size {
			return fmt.Errorf("%w: blob %s has digest sha256:%s and %d bytes; its descriptor says %d bytes", ErrDigestMismatch, s.desc.Digest, got, s.cN, s.desc.Size)
		}
	}
	if trailing {
		return fmt.Errorf("%w: the layer holds more than %d bytes after its end-of-archive marker, which no unpacker reads", ErrMalformed, maxTrailer)
	}
	if diffID.Algorithm == "sha256" {
		if got := hex.EncodeToString(s.uHash.Sum(nil)); got != diffID.Hex {
			return fmt.Errorf("%w: the layer uncompresses to sha256:%s, but the config's diff_id is %s", ErrDigestMismatch, got, diffID)
		}
	}
	return nil
}

type countingWriter struct {
	h hash.Hash
	n *int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	*w.n += int64(len(p))
	return w.h.Write(p)
}

// streamLayer presents a compressed stream to go-containerregistry's
// decompression.
type streamLayer struct {
	d v1.Descriptor
	r io.Reader
}

func (l streamLayer) Digest() (v1.Hash, error)            { return l.d.Digest, nil }
func (l streamLayer) Size() (int64, error)                { return l.d.Size, nil }
func (l streamLayer) MediaType() (types.MediaType, error) { return l.d.MediaType, nil }
func (l streamLayer) Compressed() (io.ReadCloser, error)  { return io.NopCloser(l.r), nil }
