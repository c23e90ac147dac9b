// Two triangles per variable, so every figure the tests expect can be worked out by hand.
export const fanAgent = {
  name: 'fan',
  inputs: { temperature: { cold: [0, 10, 20], hot: [10, 20, 30] } },
  outputs: { fan: { slow: [0, 25, 50], fast: [50, 75, 100] } },
  rules: ['IF temperature IS cold THEN fan IS slow', 'IF temperature IS hot THEN fan IS fast'],
};

// At 12°: cold = (20−12)/10 = 0.8, hot = (12−10)/10 = 0.2.
// slow cut at 0.8: trapezoid 0,20,30,50 → area (50+10)/2·0.8 = 24, centre 25.
// fast cut at 0.2: trapezoid 50,55,95,100 → area (50+40)/2·0.2 = 9, centre 75.
// They only touch at x = 50, so the centroid is (24·25 + 9·75)/(24 + 9) = 1275/33.
export const fanAt12 = 1275 / 33;

// At 15° both sets hold 0.5: two mirror-image trapezoids about 50.
export const fanAt15 = 50;
