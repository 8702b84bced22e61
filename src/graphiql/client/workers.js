// Monaco runs its language services in web workers. The build emits them next to app.js, and
// import.meta.url is app.js's own URL, so they load from wherever the page is mounted.
globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const file =
      label === 'json' ? 'json.worker.js' : label === 'graphql' ? 'graphql.worker.js' : 'editor.worker.js';
    return new Worker(new URL(`./${file}`, import.meta.url));
  },
};
