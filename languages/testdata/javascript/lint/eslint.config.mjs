// Minimal flat config for the javascript.lint fixture: core rules only, so
// no plugin packages are needed.
export default [
  {
    files: ["**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { console: "readonly", module: "writable", require: "readonly" },
    },
    rules: {
      "no-unused-vars": "error",
      "no-undef": "error",
      eqeqeq: "warn",
    },
  },
];
