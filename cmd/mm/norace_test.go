package main

// raceEnabled is set when the tests are built with -race, so the mm they
// run is built the same way.
var raceEnabled bool
