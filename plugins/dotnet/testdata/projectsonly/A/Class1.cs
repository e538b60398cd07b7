namespace A;
