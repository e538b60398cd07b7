// Package privfile keeps directories private to the user: langhost's
// sockets, logs and caches live in directories nobody else may enter, so
// that nobody else can plant or read what is in them.
package privfile
