// Package proto holds the gRPC contract (semantic.v1.SemanticAgent) between
// the langhost host and semantic agent plugins, and the Go code generated
// from semantic.proto. The generated files are committed; regenerate them
// after editing semantic.proto with
//
//	apt-get install -y protobuf-compiler   # protoc 3.21 or newer
//	GOBIN=/tmp/bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	GOBIN=/tmp/bin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//	PATH=/tmp/bin:$PATH go generate ./plugins/proto
//
// Callers normally use package pluginapi, which wraps this contract in the
// pluginapi.Agent interface.
package proto

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative semantic.proto
