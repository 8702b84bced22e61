// Starts Swagger UI on the OpenAPI document next to this page. Relative URLs keep it working under
// any path prefix; validatorUrl null stops Swagger UI from calling validator.swagger.io.
window.ui = window.SwaggerUIBundle({
  url: new URL('openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: true,
  tryItOutEnabled: false,
  defaultModelsExpandDepth: 0,
});
