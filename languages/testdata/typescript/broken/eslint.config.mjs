// Core ESLint only: without typescript-eslint, espree cannot parse type
// annotations, which the typescript.lint test relies on.
export default [{ files: ["**/*.ts"], rules: { "no-unused-vars": "error" } }];
