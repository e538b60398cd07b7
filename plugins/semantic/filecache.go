package semantic

import (
	"bytes"
	"container/list"
	"os"
	"sync"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
)

// fileCache is an LRU of files read from disk for output (line text,
// positions, containing members): their content and, once computed, their
// outline, bounded in entries and estimated bytes. Without it every query
// reads and indexes again each file its references are in. An entry is
// valid while its file keeps its inode, size and modification time.
type fileCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // of *cachedFile, most recently used first
	byPath     map[string]*list.Element
}

type cachedFile struct {
	path     string
	info     os.FileInfo
	mapper   *lsp.Mapper
	syms     []lsp.DocumentSymbol
	outlined bool // syms is the outline of mapper's content
	cost     int
}

func newFileCache(maxEntries, maxBytes int) *fileCache {
	return &fileCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byPath: map[string]*list.Element{}}
}

// lookupLocked returns the valid entry of path in state fi, dropping a
// stale one.
func (fc *fileCache) lookupLocked(path string, fi os.FileInfo) *cachedFile {
	el, ok := fc.byPath[path]
	if !ok {
		return nil
	}
	ent := el.Value.(*cachedFile)
	if fileChanged(ent.info, fi) {
		fc.removeLocked(el)
		return nil
	}
	fc.order.MoveToFront(el)
	return ent
}

// content returns the content of path read from disk in state fi.
func (fc *fileCache) content(path string, fi os.FileInfo) (*lsp.Mapper, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if ent := fc.lookupLocked(path, fi); ent != nil {
		return ent.mapper, true
	}
	return nil, false
}

// outline returns the outline of f's content, if it is cached.
func (fc *fileCache) outline(f fileContent) ([]lsp.DocumentSymbol, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	ent := fc.lookupLocked(f.path, f.info)
	if ent == nil || !ent.outlined || !sameContent(ent.mapper, f.mapper) {
		return nil, false
	}
	return ent.syms, true
}

// outlineOr returns the cached outline of f's content, else computes it
// with compute and caches it.
func (fc *fileCache) outlineOr(f fileContent, compute func() ([]lsp.DocumentSymbol, error)) ([]lsp.DocumentSymbol, error) {
	if syms, ok := fc.outline(f); ok {
		return syms, nil
	}
	syms, err := compute()
	if err != nil {
		return nil, err
	}
	fc.putOutline(f, syms)
	return syms, nil
}

// putContent records the content of path read from disk in state fi.
func (fc *fileCache) putContent(path string, fi os.FileInfo, m *lsp.Mapper) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.putLocked(&cachedFile{path: path, info: fi, mapper: m})
}

// putOutline records the outline of f's content. The outline of a
// document's content is kept only when it is the content on disk: a
// document may hold an edit's text under the disk file's state.
func (fc *fileCache) putOutline(f fileContent, syms []lsp.DocumentSymbol) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	ent := fc.lookupLocked(f.path, f.info)
	switch {
	case ent != nil && sameContent(ent.mapper, f.mapper):
		fc.putLocked(&cachedFile{path: f.path, info: ent.info, mapper: ent.mapper, syms: syms, outlined: true})
	case ent == nil && f.fromDisk && time.Since(f.info.ModTime()) > racyWindow:
		fc.putLocked(&cachedFile{path: f.path, info: f.info, mapper: f.mapper, syms: syms, outlined: true})
	}
}

func (fc *fileCache) putLocked(ent *cachedFile) {
	ent.cost = len(ent.path) + len(ent.mapper.Content()) + 8*ent.mapper.LineCount() + symbolsCost(ent.syms)
	if el, ok := fc.byPath[ent.path]; ok {
		fc.removeLocked(el)
	}
	if ent.cost > fc.maxBytes {
		return
	}
	fc.byPath[ent.path] = fc.order.PushFront(ent)
	fc.bytes += ent.cost
	for fc.order.Len() > fc.maxEntries || fc.bytes > fc.maxBytes {
		fc.removeLocked(fc.order.Back())
	}
}

func (fc *fileCache) removeLocked(el *list.Element) {
	ent := fc.order.Remove(el).(*cachedFile)
	delete(fc.byPath, ent.path)
	fc.bytes -= ent.cost
}

// len returns the number of entries and their estimated bytes.
func (fc *fileCache) len() (entries, bytes int) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.order.Len(), fc.bytes
}

func sameContent(a, b *lsp.Mapper) bool {
	return a == b || bytes.Equal(a.Content(), b.Content())
}
