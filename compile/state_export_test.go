package compile

// RenderStateItem exposes the state item renderer to the external tests.
var RenderStateItem = renderStateItem
