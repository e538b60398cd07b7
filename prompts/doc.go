// Package prompts holds langhost's prompt templates, embedded in the
// binary, and composes a language's coding prompt from its spec: workflow,
// available tools, best practices, syntax reminders and project structure.
package prompts
